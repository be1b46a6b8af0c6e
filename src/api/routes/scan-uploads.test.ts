import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store/index.js';
import { ENGINES } from '../../store/testing/databases.js';
import { send } from '../testing/send.js';
import { type RunningApi, type ServedDatabase, serveApi, serveDatabase } from '../testing/serve.js';

/** nuclei's uploader (internal/pdcp/writer.go): a chunk goes when the next line would take it past 4 MiB. */
const NUCLEI_CHUNK = 4 * 1024 * 1024;
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** One line of `nuclei -jsonl` with a large response, as the uploader writes it (request and response included). */
function nucleiLine(n: number): string {
  return `${JSON.stringify({
    template: 'http/exposures/configs/git-config.yaml',
    'template-url': 'https://cloud.projectdiscovery.io/public/git-config',
    'template-id': `exposure-${n % 7}`,
    'template-path': '/root/nuclei-templates/http/exposures/configs/git-config.yaml',
    info: {
      name: 'Git Config',
      author: ['pdteam'],
      tags: ['config', 'git'],
      severity: SEVERITIES[n % SEVERITIES.length],
      classification: { 'cve-id': null, 'cwe-id': ['cwe-200'] },
    },
    type: 'http',
    host: `app${n % 3}.test`,
    port: '443',
    scheme: 'https',
    url: `https://app${n % 3}.test`,
    'matched-at': `https://app${n % 3}.test/${n}/.git/config`,
    request: `GET /${n}/.git/config HTTP/1.1\r\nHost: app${n % 3}.test\r\n\r\n`,
    response: `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n${'[core]\n'.repeat(15_000)}`,
    ip: '10.0.0.1',
    timestamp: new Date(Date.UTC(2024, 2, 14, 10, 0, n)).toISOString(),
    'curl-command': `curl -X 'GET' 'https://app${n % 3}.test/${n}/.git/config'`,
    'matcher-status': true,
  })}\n`;
}

/** The lines cut into chunks as nuclei's uploader cuts them: each at most 4 MiB. */
function nucleiChunks(lines: readonly string[]): Buffer[] {
  const chunks: Buffer[] = [];
  let buffer: Buffer[] = [];
  let size = 0;
  for (const line of lines) {
    const bytes = Buffer.from(line);
    if (size + bytes.length > NUCLEI_CHUNK) {
      chunks.push(Buffer.concat(buffer));
      buffer = [];
      size = 0;
    }
    buffer.push(bytes);
    size += bytes.length;
  }
  if (size > 0) chunks.push(Buffer.concat(buffer));
  return chunks;
}

/** The query nuclei's uploader adds (pdtm's parameters, sorted by Go's url.Values.Encode). */
const PDTM_QUERY =
  'arch=amd64&go_version=go1.22.5&machine_id=1f0c2a9d3e&os=debian&utm_source=nuclei&v=v3.3.7';

function nucleiHeaders(key: string, team?: string): Record<string, string> {
  return {
    'User-Agent': 'Go-http-client/1.1',
    'X-Api-Key': key,
    ...(team === undefined ? {} : { 'X-Team-Id': team }),
    'Content-Type': 'application/octet-stream',
    Accept: 'application/json',
    'Accept-Encoding': 'gzip',
  };
}

describe.each(ENGINES)('nuclei result upload on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;
  let teamId: string;
  let writeKey: string;
  let readKey: string;
  let otherTeamKey: string;

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
    teamId = (await store.teams.ensure('default')).id;
    writeKey = (await store.keys.create({ teamId, name: 'nuclei', scope: 'write' })).secret;
    readKey = (await store.keys.create({ teamId, name: 'dashboard' })).secret;
    const other = (await store.teams.ensure('partners')).id;
    otherTeamKey = (await store.keys.create({ teamId: other, name: 'partner', scope: 'write' })).secret;
  });
  afterAll(() => served?.close());

  const post = (query: string, key: string, body: Buffer | string, team?: string) =>
    send(api.url, 'POST', `/v1/scans/import?${query}`, nucleiHeaders(key, team), body);
  const patch = (id: string, key: string, body: Buffer | string, team?: string) =>
    send(api.url, 'PATCH', `/v1/scans/${id}/import?${PDTM_QUERY}`, nucleiHeaders(key, team), body);

  it('takes an upload in 4 MiB chunks exactly as nuclei sends it, and lists the scan with its counts', async () => {
    const lines = Array.from({ length: 120 }, (_, n) => nucleiLine(n));
    // The last chunk repeats a result of the first: the same vuln hash, skipped.
    const chunks = nucleiChunks([...lines, lines[0] ?? '']);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...chunks.map((c) => c.length))).toBeGreaterThan(3.9 * 1024 * 1024);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(NUCLEI_CHUNK);

    const [first, ...rest] = chunks;
    const created = await post(`${PDTM_QUERY}&name=nightly`, writeKey, first ?? '', teamId);
    expect(created.status).toBe(200);
    expect(created.body.id).toMatch(/^[a-z0-9]{20}$/);
    expect(created.body.message).toEqual(expect.any(String));
    let imported = created.body.imported as number;
    let duplicates = 0;
    for (const chunk of rest) {
      const appended = await patch(created.body.id, writeKey, chunk, teamId);
      expect(appended.status).toBe(200);
      expect(appended.body.id).toBe(created.body.id);
      imported += appended.body.imported;
      duplicates += appended.body.duplicates;
    }
    expect(imported).toBe(120);
    expect(duplicates).toBe(1);

    const listed = await api.get('/v1/scans?search=nightly', readKey);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      scan_id: created.body.id,
      name: 'nightly',
      status: 'uploaded',
      progress: 100,
      severity: { critical: 24, high: 24, medium: 24, low: 24, info: 24, unknown: 0 },
      total_target: 3,
      total_template: 7,
      total_scan: 21,
      is_oss: true,
    });
  });

  it('reports bad lines by their number in the body and keeps the good ones', async () => {
    const body = `${nucleiLine(1000)}not json\n{"template-id": 5}\n${nucleiLine(1001)}`;
    const created = await post('name=mixed', writeKey, body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ imported: 2, bad_lines: 2 });
    expect(created.body.errors.map((e: { line: number }) => e.line)).toEqual([2, 3]);
    expect(created.body.errors[0].message).toContain('not valid JSON');
  });

  it('creates nothing from a body without one result event, and says why', async () => {
    const before = (await api.get('/v1/scans?limit=1000', readKey)).body.data.length;
    const answered = await post('name=empty', writeKey, 'garbage\n');
    expect(answered.status).toBe(400);
    expect(answered.body).toEqual({ message: expect.stringContaining('line 1'), code: 'invalid_body' });
    expect((await post('name=empty', writeKey, '')).status).toBe(400);
    expect((await api.get('/v1/scans?limit=1000', readKey)).body.data).toHaveLength(before);
  });

  it('names an upload without a name after its time, and ignores the query parameters it does not know', async () => {
    const created = await post(`${PDTM_QUERY}&sdk=true`, writeKey, nucleiLine(2000));
    expect(created.status).toBe(200);
    const scan = await store.scans.get(created.body.id, teamId);
    expect(scan?.name).toMatch(/^upload \d{4}-\d\d-\d\dT/);
  });

  it('reads the body as bytes whatever its Content-Type, never as JSON', async () => {
    for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
      const answered = await send(
        api.url,
        'POST',
        '/v1/scans/import?name=typed',
        { 'X-Api-Key': writeKey, 'Content-Type': type },
        nucleiLine(3000),
      );
      expect(answered.status).toBe(200);
      expect(answered.body.imported).toBe(1);
    }
  });

  it('refuses a body over 8 MiB with 413, declared or streamed, and keeps nothing of it', async () => {
    const line = nucleiLine(5000);
    const big = Buffer.from(line.repeat(Math.ceil((8 * 1024 * 1024 + 1) / line.length)));
    const declared = await post('name=huge', writeKey, big);
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({
      message: expect.stringContaining('8 MiB'),
      code: 'payload_too_large',
    });
    const streamed = await send(api.url, 'POST', '/v1/scans/import?name=huge', nucleiHeaders(writeKey), big, {
      chunked: true,
    });
    expect(streamed.status).toBe(413);
    expect(streamed.body.code).toBe('payload_too_large');
    expect((await api.get('/v1/scans?search=huge', readKey)).body.data).toEqual([]);
  });

  it('answers 403 to a read key before reading the body, and stores nothing', async () => {
    const answered = await post('name=from-reader', readKey, nucleiLine(4000));
    expect(answered.status).toBe(403);
    expect(answered.body).toEqual({ message: expect.stringContaining('--scope write'), code: 'forbidden' });
    expect((await api.get('/v1/scans?search=from-reader', readKey)).body.data).toEqual([]);
  });

  it("never lets a team's key append to another team's scan", async () => {
    const created = await post('name=ours', writeKey, nucleiLine(6000));
    const intruded = await patch(created.body.id, otherTeamKey, nucleiLine(6001));
    expect(intruded.status).toBe(404);
    expect(intruded.body.code).toBe('not_found');
    const scan = await store.scans.get(created.body.id, teamId);
    const findings = await store.findings.ofScan(created.body.id, { limit: 10 });
    expect(scan).toBeDefined();
    expect(findings).toHaveLength(1);
  });

  it('answers 403 when X-Team-Id names another team than the key’s, and accepts "none"', async () => {
    const other = await post('name=elsewhere', writeKey, nucleiLine(7000), 'cphlrbmnr2khg33n6ik1');
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    expect((await post('name=no-team', writeKey, nucleiLine(7001), 'none')).status).toBe(200);
  });

  it('logs an upload without its key, its body or the values of its other parameters, even when it fails', async () => {
    let logs = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += chunk.toString();
        done();
      },
    });
    const logged = await serveApi(store, { logger: pino({ level: 'debug' }, sink) });
    const canary = 'session=CANARY-7f3a9';
    const line = nucleiLine(9000).replace('[core]', canary);
    try {
      const created = await send(
        logged.url,
        'POST',
        `/v1/scans/import?${PDTM_QUERY}&name=logged`,
        nucleiHeaders(writeKey, teamId),
        line,
      );
      expect(created.status).toBe(200);
      await send(logged.url, 'PATCH', `/v1/scans/${created.body.id}/import`, nucleiHeaders(readKey), line);
      await send(logged.url, 'POST', '/v1/scans/import', nucleiHeaders(writeKey), `not json ${canary}\n`);
    } finally {
      await logged.close();
    }
    expect(logs).toContain('"msg":"request completed"');
    for (const secret of [writeKey.slice(3), readKey.slice(3), canary, '1f0c2a9d3e'])
      expect(logs).not.toContain(secret);
  });

  it('appends only to an uploaded scan, and names a malformed id', async () => {
    const running = await store.scans.create({ teamId, name: 'live', status: 'starting' });
    const refused = await patch(running.id, writeKey, nucleiLine(8000));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('conflict');
    const malformed = await patch('not-an-id', writeKey, nucleiLine(8001));
    expect(malformed.status).toBe(400);
    expect(malformed.body.param).toBe('id');
  });
});
