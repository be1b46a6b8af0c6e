import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { HttpClient } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { type DeferredTemplate, NO_FILTER, selectTemplates } from '../template/index.js';
import { CompiledTemplates, KEPT_UNUSED, keptUnusedFor } from './compiled-templates.js';
import { runScan } from './run-scan.js';
import { ScanStats } from './stats.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyhole-deferred-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function templateText(id: string, extra = ''): string {
  return `id: ${id}
info: {name: ${id}, author: a, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/${id}"]${extra}
    matchers:
      - type: word
        words: ["${id}"]
`;
}

async function deferredTemplates(folder: string, count: number): Promise<DeferredTemplate[]> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, folder), { recursive: true });
  for (let i = 0; i < count; i++) await writeFile(join(dir, folder, `t${i}.yaml`), templateText(`t${i}`));
  const selection = await selectTemplates([join(dir, folder)], { filter: NO_FILTER });
  return selection.results.map((result) => {
    if (result.status !== 'ok') throw new Error(`${result.file} does not load`);
    return result.template;
  });
}

describe('the compiled templates of a scan', () => {
  it('compile a deferred template once for the runs in flight and share it between them', async () => {
    const [template] = await deferredTemplates('shared', 1);
    if (template === undefined) throw new Error('no template');
    const compiled = new CompiledTemplates(0);
    const first = compiled.acquire(template);
    const second = compiled.acquire(template);
    expect(second).toBe(first);
    expect(first.http).toHaveLength(1);
    compiled.release(template);
    expect(compiled.held).toBe(1);
    compiled.release(template);
    expect(compiled.held).toBe(0);
    expect(compiled.acquire(template)).not.toBe(first);
  });

  it('keep the most recently used unused ones up to their limit and let the oldest go', async () => {
    const templates = await deferredTemplates('recent', 5);
    const compiled = new CompiledTemplates(2);
    const forms = templates.map((t) => {
      const form = compiled.acquire(t);
      compiled.release(t);
      return form;
    });
    expect(compiled.held).toBe(2);
    const [first, , , fourth, fifth] = templates as [DeferredTemplate, ...DeferredTemplate[]];
    expect(compiled.acquire(fifth as DeferredTemplate)).toBe(forms[4]);
    expect(compiled.acquire(fourth as DeferredTemplate)).toBe(forms[3]);
    expect(compiled.acquire(first)).not.toBe(forms[0]);
  });

  it('are kept unused only when a template comes round again before more than are kept were released', () => {
    expect(keptUnusedFor(10, 1000)).toBe(KEPT_UNUSED);
    expect(keptUnusedFor(KEPT_UNUSED, 2)).toBe(KEPT_UNUSED);
    expect(keptUnusedFor(KEPT_UNUSED + 1, 2)).toBe(0);
    expect(keptUnusedFor(10_000, 1)).toBe(0);
    expect(keptUnusedFor(10, 1)).toBe(0);
  });

  it('say which file no longer compiles when a payload file it read was removed since it was checked', async () => {
    const folder = join(dir, 'payloads');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'words.txt'), 'a\nb\n');
    await writeFile(
      join(folder, 'p.yaml'),
      templateText('p', '\n    payloads:\n      word: words.txt').replace('/p"]', '/p/{{word}}"]'),
    );
    const selection = await selectTemplates([folder], { filter: NO_FILTER });
    const result = selection.results[0];
    if (result?.status !== 'ok') throw new Error('the payload template does not load');
    expect(result.template.requestCount).toBe(2);
    await rm(join(folder, 'words.txt'));
    expect(() => new CompiledTemplates().acquire(result.template)).toThrow(/p\.yaml no longer compiles/);
  });
});

describe('a scan of deferred templates', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => res.end(`you asked for ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('runs every template on every target, each finding where its own template matched', async () => {
    const templates = await deferredTemplates('scan', 300);
    const client = new HttpClient({ timeoutMs: 5000 });
    const events: ResultEvent[] = [];
    const targets = [`http://127.0.0.1:${port}/a`, `http://127.0.0.1:${port}/b`];
    await runScan(
      { templates, targets },
      {
        concurrency: 10,
        run: { dispatch: transportDispatch(client) },
        stats: new ScanStats(600),
        listener: { onEvent: (event) => events.push(event) },
        resolveTarget: async (target) => ({ ok: true, url: target }),
      },
    );
    await client.close();
    expect(events).toHaveLength(600);
    for (const event of events) expect(event['matched-at']).toContain(`/${event['template-id']}`);
  });
});
