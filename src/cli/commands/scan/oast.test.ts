import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, fixtureServer } from '../../../engine/testing/server.js';
import { OAST_DEFAULTS as WATCHER_DEFAULTS } from '../../../oast/index.js';
import { type BlindSsrfApp, blindSsrfApp, fetchThroughListener } from '../../../oast/testing/blind-ssrf.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';
import { OAST_DEFAULTS } from './command.js';
import { oastConfig } from './oast-config.js';

const SSRF = `id: blind-ssrf-fetch
info:
  name: Blind SSRF in the fetch parameter
  author: keyhole
  severity: high
  tags: ssrf,oast
http:
  - method: GET
    path:
      - "{{BaseURL}}/fetch?url=http://{{interactsh-url}}"
    matchers:
      - type: word
        part: interactsh_protocol
        name: http
        words:
          - "http"
`;

/** Free ports for the listener: HTTP on one, DNS (UDP and TCP) on another. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('keyhole scan with out-of-band templates', () => {
  let app: BlindSsrfApp;
  let httpPort: number;
  let dnsPort: number;

  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyhole-oast-'));
    await writeFile(join(dir, 'ssrf.yaml'), SSRF);
    httpPort = await freePort();
    dnsPort = await freePort();
    app = await blindSsrfApp({ host: '127.0.0.1', port: dnsPort }, httpPort);
  });

  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("finds a blind SSRF with keyhole's own listener run in the scan, and shows the interaction in JSONL", async () => {
    const io = memoryIo({ cwd: dir });
    const code = await run(
      [
        'scan',
        '-u',
        app.origin,
        '-t',
        'ssrf.yaml',
        '-j',
        '--no-store',
        '--oast-listen',
        `127.0.0.1:${httpPort}`,
        '--oast-domain',
        'oast.test',
        '--oast-dns-listen',
        `127.0.0.1:${dnsPort}`,
        '-interactions-poll-duration',
        '0.2',
        '-interactions-cooldown-period',
        '3',
      ],
      io,
    );
    expect(io.err()).toContain(
      `out-of-band callbacks go to keyhole's listener on 127.0.0.1:${httpPort} for *.oast.test`,
    );
    expect(code).toBe(0);
    const events = io
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events).toHaveLength(1);
    expect(events[0]['matched-at']).toMatch(
      new RegExp(`^${app.origin}/fetch\\?url=http://[0-9a-z]{33}\\.oast\\.test$`),
    );
    expect(events[0].interaction).toMatchObject({ protocol: 'http', 'remote-address': '127.0.0.1' });
    expect(Object.keys(events[0]).indexOf('interaction')).toBe(
      Object.keys(events[0]).indexOf('timestamp') + 1,
    );
  });

  it('stores the interaction with the finding, a secret the target passed on to the callback redacted', async () => {
    const secret = 'oast-secret-5f3e9a';
    await writeFile(
      join(dir, 'secrets.yaml'),
      `static:\n  - type: header\n    domains: ["${new URL(app.origin).host}"]\n    headers:\n      - key: X-Api-Key\n        value: ${secret}\n`,
      { mode: 0o600 },
    );
    await writeFile(
      join(dir, 'forward.yaml'),
      SSRF.replace('/fetch?url=http://{{interactsh-url}}', '/fetch?forward=1&url=http://{{interactsh-url}}'),
    );
    const io = memoryIo({ cwd: dir });
    const code = await run(
      [
        'scan',
        '-u',
        app.origin,
        '-t',
        'forward.yaml',
        '-sf',
        'secrets.yaml',
        '-j',
        '--db',
        'store.db',
        '--oast-listen',
        `127.0.0.1:${httpPort}`,
        '--oast-domain',
        'oast.test',
        '--oast-dns-listen',
        `127.0.0.1:${dnsPort}`,
        '-interactions-poll-duration',
        '0.2',
        '-interactions-cooldown-period',
        '3',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.err()).toContain('authenticated  1 of 1 request');
    const [event] = io
      .out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(event.interaction['raw-request']).toMatch(/x-api-key: \[REDACTED\]/i);
    expect(io.out()).not.toContain(secret);
    const scanId = /scan ([0-9a-v]{20})/.exec(io.err())?.[1];
    expect(scanId).toBeDefined();
    const exported = memoryIo({ cwd: dir });
    expect(
      await run(
        ['findings', 'export', '--scan', scanId!, '--format', 'json', '-o', 'out.json', '--db', 'store.db'],
        exported,
      ),
    ).toBe(0);
    const stored = await readFile(join(dir, 'out.json'), 'utf8');
    expect(JSON.parse(stored)[0].interaction).toMatchObject({
      protocol: 'http',
      'unique-id': event.interaction['unique-id'],
    });
    expect(stored).toMatch(/x-api-key: \[REDACTED\]/i);
    expect(stored).not.toContain(secret);
  });

  it('finds a blind SSRF whose fetch is https://{{interactsh-url}}, over the listener’s self-signed HTTPS', async () => {
    await writeFile(join(dir, 'ssrf-tls.yaml'), SSRF.replace('url=http://', 'url=https://'));
    const httpsPort = await freePort();
    const tlsApp = await blindSsrfApp(
      { host: '127.0.0.1', port: dnsPort },
      { http: httpPort, https: httpsPort },
    );
    try {
      const io = memoryIo({ cwd: dir });
      const code = await run(
        [
          'scan',
          '-u',
          tlsApp.origin,
          '-t',
          'ssrf-tls.yaml',
          '-j',
          '--no-store',
          '--oast-listen',
          `127.0.0.1:${httpPort}`,
          '--oast-domain',
          'oast.test',
          '--oast-dns-listen',
          `127.0.0.1:${dnsPort}`,
          '--oast-https-listen',
          `127.0.0.1:${httpsPort}`,
          '-interactions-poll-duration',
          '0.2',
          '-interactions-cooldown-period',
          '3',
        ],
        io,
      );
      expect(io.err()).toContain(`HTTPS on 127.0.0.1:${httpsPort}`);
      expect(code).toBe(0);
      const events = io
        .out()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(events).toHaveLength(1);
      expect(events[0]['matched-at']).toMatch(/\/fetch\?url=https:\/\/[0-9a-z]{33}\.oast\.test$/);
      expect(events[0].interaction).toMatchObject({ protocol: 'http', 'remote-address': '127.0.0.1' });
    } finally {
      await tlsApp.close();
    }
  });

  it('says which certificate file it cannot use, naming the flag, before any request', async () => {
    await writeFile(join(dir, 'not-a-cert.pem'), 'hello\n');
    const base = ['scan', '-u', app.origin, '-t', 'ssrf.yaml', '--no-store', '--oast-listen', '127.0.0.1:0'];
    const tls = ['--oast-domain', 'oast.test', '--oast-https-listen', '127.0.0.1:0'];
    const garbled = memoryIo({ cwd: dir });
    const args = [...base, ...tls, '--oast-tls-cert', 'not-a-cert.pem', '--oast-tls-key', 'not-a-cert.pem'];
    expect(await run(args, garbled)).toBe(1);
    expect(garbled.err()).toContain(
      '--oast-tls-cert not-a-cert.pem is not a PEM certificate (expected -----BEGIN CERTIFICATE-----)',
    );
    expect(garbled.err()).not.toMatch(/\n\s+at /);
    const missing = memoryIo({ cwd: dir });
    const absent = [...base, ...tls, '--oast-tls-cert', 'nowhere.pem', '--oast-tls-key', 'nowhere.key'];
    expect(await run(absent, missing)).toBe(1);
    expect(missing.err()).toContain('--oast-tls-cert nowhere.pem: cannot read it (no such file)');
  });

  it('says loudly, before any request, when the interactsh server cannot be reached', async () => {
    const io = memoryIo({ cwd: dir });
    const unused = await freePort();
    const code = await run(
      ['scan', '-u', app.origin, '-t', 'ssrf.yaml', '--no-store', '-iserver', `http://127.0.0.1:${unused}`],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toContain(`cannot reach the interactsh server http://127.0.0.1:${unused}`);
    expect(io.err()).toContain(
      '--oast-listen HOST:PORT --oast-domain NAME, or leave those requests out with -ni',
    );
  });

  it('skips the out-of-band requests with -ni, saying so, and contacts no server', async () => {
    const io = memoryIo({ cwd: dir });
    const code = await run(['scan', '-u', app.origin, '-t', 'ssrf.yaml', '--no-store', '-ni'], io);
    expect(code).toBe(0);
    expect(io.err()).toContain('-ni: the requests with {{interactsh-url}} of 1 template are skipped');
    expect(io.out()).toBe('');
  });
});

describe('keyhole scan with a real out-of-band template, and the cooldown', () => {
  let dir: string;
  let listen: string[];
  let target: FixtureServer;
  /** How long the application waits before it fetches the URL it was given. */
  let delayMs = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyhole-oast-'));
    await writeFile(join(dir, 'delayed.yaml'), SSRF);
    const http = await freePort();
    const dns = await freePort();
    listen = [
      '--oast-listen',
      `127.0.0.1:${http}`,
      '--oast-domain',
      'oast.test',
      '--oast-dns-listen',
      `127.0.0.1:${dns}`,
      '-interactions-poll-duration',
      '0.2',
    ];
    const fetchLater = (url: string) =>
      setTimeout(() => void fetchThroughListener(url, { host: '127.0.0.1', port: dns }, http), delayMs);
    // WordPress's oEmbed proxy, as the template expects it: without `url` it asks for one; with it,
    // it fetches the URL in the background (here from a network whose resolver is the listener's DNS).
    target = await fixtureServer([
      {
        method: 'GET',
        path: '/wp-json/oembed/1.0/proxy',
        respond: (request) => {
          const url = request.query.get('url');
          if (url === null)
            return {
              status: 400,
              headers: { 'Content-Type': 'application/json' },
              body: '{"code":"rest_missing_callback_param","message":"Missing parameter(s): url","data":{"status":400}}',
            };
          fetchLater(url);
          return { status: 401, body: '{"code":"rest_forbidden"}' };
        },
      },
      {
        method: 'GET',
        path: '/fetch',
        respond: (request) => {
          fetchLater(request.query.get('url') ?? '');
          return { body: 'queued' };
        },
      },
    ]);
  });

  afterAll(async () => {
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function scan(...argv: string[]) {
    const io = memoryIo({ cwd: dir });
    const code = await run(['scan', '-u', target.url, '-j', '--no-store', ...listen, ...argv], io);
    expect(code, io.err()).toBe(0);
    return io
      .out()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it("finds the blind SSRF of WordPress's oEmbed proxy with nuclei-templates' wordpress-ssrf-oembed", async () => {
    delayMs = 0;
    const corpus = fileURLToPath(
      new URL(
        '../../../../test/corpus/http/vulnerabilities/wordpress/wordpress-ssrf-oembed.yaml',
        import.meta.url,
      ),
    );
    const events = await scan('-t', corpus);
    expect(events).toHaveLength(1);
    expect(events[0]?.['template-id']).toBe('wordpress-ssrf-oembed');
    expect(events[0]?.['matched-at']).toMatch(
      /\/wp-json\/oembed\/1\.0\/proxy\?url=http:\/\/[0-9a-z]{33}\.oast\.test$/,
    );
    expect(events[0]?.interaction).toMatchObject({ protocol: 'http' });
  });

  it('waits -interactions-cooldown-period for a callback: one later than that is not seen, one within it is', async () => {
    delayMs = 1500;
    expect(await scan('-t', 'delayed.yaml', '-interactions-cooldown-period', '0.5')).toEqual([]);
    const events = await scan('-t', 'delayed.yaml', '-interactions-cooldown-period', '4');
    expect(events.map((e) => (e.interaction as { protocol: string }).protocol)).toEqual(['http']);
  });

  it("waits nuclei's default cooldown of 5 s when none is given", async () => {
    delayMs = 3500;
    const started = Date.now();
    const events = await scan('-t', 'delayed.yaml');
    expect(events).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThan(3500);
  }, 20_000);
});

describe('the out-of-band flags', () => {
  it("default to nuclei's public servers and nuclei's timings", () => {
    expect(oastConfig({})).toEqual({
      kind: 'servers',
      servers: ['oast.pro', 'oast.live', 'oast.site', 'oast.online', 'oast.fun', 'oast.me'],
      publicDefault: true,
      timing: { cacheSize: 5000, evictionMs: 60_000, pollMs: 5000, cooldownMs: 5000 },
    });
    expect(OAST_DEFAULTS).toEqual(WATCHER_DEFAULTS);
  });

  it('take -iserver as a list tried in order, with its token', () => {
    expect(
      oastConfig({ interactshServer: 'oast.internal, http://10.0.0.5:8080', interactshToken: 't' }),
    ).toMatchObject({
      servers: ['oast.internal', 'http://10.0.0.5:8080'],
      publicDefault: false,
      token: 't',
    });
  });

  it('refuse what contradicts itself or cannot be read, naming the flag', () => {
    expect(() => oastConfig({ interactsh: false, interactshServer: 'x' })).toThrow(
      '-ni turns out-of-band testing off',
    );
    expect(() => oastConfig({ oastListen: '127.0.0.1:80' })).toThrow('give both');
    expect(() => oastConfig({ oastListen: 'nope', oastDomain: 'o.test' })).toThrow(
      '--oast-listen: expected HOST:PORT',
    );
    expect(() => oastConfig({ interactionsPollDuration: 'soon' })).toThrow(
      '-interactions-poll-duration takes a number',
    );
    expect(() =>
      oastConfig({ oastListen: '0.0.0.0:80', oastDomain: 'o.test', oastDnsListen: '0.0.0.0:53' }),
    ).toThrow('a concrete IPv4 address');
    expect(() =>
      oastConfig({ oastListen: '127.0.0.1:80', oastDomain: 'o.test', oastHttpsListen: '127.0.0.1:443' }),
    ).not.toThrow();
    expect(() =>
      oastConfig({ oastListen: '127.0.0.1:80', oastDomain: 'o.test', oastTlsCert: 'a.pem' }),
    ).toThrow('--oast-tls-cert FILE and --oast-tls-key FILE go together');
    expect(() =>
      oastConfig({ oastListen: '127.0.0.1:80', oastDomain: 'o.test', oastHttpsListen: 'x' }),
    ).toThrow('--oast-https-listen: expected HOST:PORT');
    expect(
      oastConfig({ oastListen: '127.0.0.1:80', oastDomain: 'o.test', oastSmtpListen: '127.0.0.1:25' }),
    ).toMatchObject({ smtp: { host: '127.0.0.1', port: 25 } });
    expect(() => oastConfig({ oastSmtpListen: '127.0.0.1:25' })).toThrow('give both');
  });
});
