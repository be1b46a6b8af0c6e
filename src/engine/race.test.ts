import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { okResponse, type RawServer, rawServer } from '../http/testing/servers.js';
import { loadSecretFiles, SecretResolver } from '../secretfile/index.js';
import { chain, transportDispatch, withSecrets } from '../send/index.js';
import { runTemplate, TemplateLoginRunner } from './index.js';
import { template } from './testing/templates.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server that notes when each request's last byte arrived, and on which connection. */
async function timingServer(delayMs = 0): Promise<RawServer & { readonly completed: number[] }> {
  const completed: number[] = [];
  const server = await rawServer((_head, socket) => {
    completed.push(performance.now());
    setTimeout(() => socket.write(okResponse('race ok')), delayMs);
  });
  cleanups.push(server.close);
  return Object.assign(server, { completed });
}

function session() {
  const client = new HttpClient({ timeoutMs: 5000 });
  cleanups.push(() => client.close());
  return { dispatch: transportDispatch(client) };
}

const header = `
info:
  name: race
  author: tester
  severity: info
`;

describe('race', () => {
  it('race_count sends the first request that many times, each on its own connection, completed together', async () => {
    const server = await timingServer();
    const t = template(`id: race-count${header}
http:
  - raw:
      - |
        POST /first HTTP/1.1
        Host: {{Hostname}}

        amount=100
      - |
        GET /second HTTP/1.1
        Host: {{Hostname}}
    race: true
    race_count: 10
    matchers:
      - type: word
        words: ["race ok"]
`);
    const started = performance.now();
    const run = await runTemplate(t, `http://127.0.0.1:${server.port}`, session());
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(run.events).toHaveLength(10);
    expect(server.connections()).toBe(10);
    expect(server.heads.every((head) => head.startsWith('POST /first '))).toBe(true);
    const spread = Math.max(...server.completed) - Math.min(...server.completed);
    expect(spread).toBeLessThan(100);
  });

  it('race with threads releases the requests in groups of threads', async () => {
    const server = await timingServer(300);
    const t = template(`id: race-threads${header}
http:
  - raw:
      - |
        GET /one HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /two HTTP/1.1
        Host: {{Hostname}}
      - |
        GET /three HTTP/1.1
        Host: {{Hostname}}
    threads: 2
    race: true
    matchers:
      - type: status
        status: [200]
`);
    const run = await runTemplate(t, `http://127.0.0.1:${server.port}`, session());
    expect(run.events).toHaveLength(3);
    expect(server.connections()).toBe(3);
    expect(
      server.heads
        .slice(0, 2)
        .map((head) => head.split(' ')[1])
        .sort(),
    ).toEqual(['/one', '/two']);
    expect(server.heads[2]?.split(' ')[1]).toBe('/three');
    const [one = 0, two = 0, three = 0] = server.completed;
    expect(Math.abs(two - one)).toBeLessThan(100);
    expect(three - one).toBeGreaterThanOrEqual(290);
  });

  it('a race request gets the secret of its destination through the seam, like any other', async () => {
    const server = await timingServer();
    const t = template(`id: race-secret${header}
http:
  - raw:
      - |
        GET /me HTTP/1.1
        Host: {{Hostname}}
    race: true
    race_count: 3
`);
    const dir = mkdtempSync(join(tmpdir(), 'keyhole-race-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'secrets.yaml');
    writeFileSync(
      file,
      `static:\n  - type: bearertoken\n    domains: ["127.0.0.1:${server.port}"]\n    token: race-t0ken\n`,
      { mode: 0o600 },
    );
    const loaded = await loadSecretFiles([file], { cwd: dir, env: {} });
    if (loaded.secrets === undefined) throw new Error(JSON.stringify(loaded.diagnostics));
    const { dispatch } = session();
    const resolver = new SecretResolver(loaded.secrets, {
      redactor: loaded.redactor,
      runner: new TemplateLoginRunner({ dispatch }),
    });
    const run = await runTemplate(t, `http://127.0.0.1:${server.port}`, {
      dispatch: chain(dispatch, [withSecrets(resolver)]),
    });
    expect(run.requests).toBe(3);
    expect(server.connections()).toBe(3);
    expect(server.heads.filter((head) => head.includes('Authorization: Bearer race-t0ken'))).toHaveLength(3);
  });
});

describe('constants', () => {
  it('are laid over -var and payload values, and are never rendered', async () => {
    const server = await timingServer();
    const t = template(`id: constants${header}
constants:
  token: fixed-{{not_rendered}}
  version: 2
http:
  - raw:
      - |
        GET /v{{version}}/{{token}}/{{word}} HTTP/1.1
        Host: {{Hostname}}
    payloads:
      token: [from-payload]
      word: [w]
    attack: pitchfork
`);
    await runTemplate(t, `http://127.0.0.1:${server.port}`, {
      ...session(),
      variables: { token: 'from-cli', version: '9' },
    });
    expect(server.heads.map((head) => head.split(' ')[1])).toEqual(['/v2/fixed-{{not_rendered}}/w']);
  });
});
