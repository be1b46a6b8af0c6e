import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../store/index.js';
import { ENGINES } from '../../store/testing/databases.js';
import { send } from '../testing/send.js';
import { type RunningApi, type ServedDatabase, serveDatabase } from '../testing/serve.js';

/**
 * httpx's uploader (internal/pdcp/writer.go): a chunk goes when the next line would take it past
 * 4 MiB, and that line is not sent (httpx flushes instead of buffering it).
 */
const HTTPX_CHUNK = 4 * 1024 * 1024;
const PDTM_QUERY = 'arch=amd64&go_version=go1.22.5&machine_id=1f0c2a9d3e&os=debian&utm_source=httpx&v=v1.6.9';

/** One line of `httpx -json` as its uploader marshals a result (with the response body, `-irr`). */
function httpxLine(n: number): string {
  return `${JSON.stringify({
    timestamp: '2024-07-20T15:27:16.148527329Z',
    port: '443',
    url: `https://host${n}.example.test`,
    input: `host${n}.example.test`,
    title: 'Example Domain',
    scheme: 'https',
    webserver: 'ECS (dcb/7EA3)',
    body: `<!doctype html><html><body>${'<p>filler</p>'.repeat(150)}</body></html>`,
    content_type: 'text/html',
    method: 'GET',
    host: '93.184.215.14',
    path: '/',
    time: '120.5ms',
    a: ['93.184.215.14'],
    words: 298,
    lines: 47,
    status_code: 200,
    content_length: 1256,
    failed: false,
    knowledgebase: { PageType: 'nonerror', pHash: 0 },
    resolvers: ['1.1.1.1:53'],
  })}\n`;
}

/** The bodies httpx sends for these lines, in order, and the lines it sent. */
function chunksOf(lines: readonly string[]): { chunks: Buffer[]; sent: string[] } {
  const chunks: Buffer[] = [];
  const sent: string[] = [];
  let buffer: Buffer[] = [];
  let size = 0;
  for (const line of lines) {
    const bytes = Buffer.from(line);
    if (size + bytes.length > HTTPX_CHUNK) {
      chunks.push(Buffer.concat(buffer));
      buffer = [];
      size = 0;
      continue;
    }
    buffer.push(bytes);
    sent.push(line);
    size += bytes.length;
  }
  if (size > 0) chunks.push(Buffer.concat(buffer));
  return { chunks, sent };
}

function httpxHeaders(key: string): Record<string, string> {
  return {
    'User-Agent': 'Go-http-client/1.1',
    'X-Api-Key': key,
    'Content-Type': 'application/octet-stream',
    Accept: 'application/json',
    'Accept-Encoding': 'gzip',
  };
}

describe.each(ENGINES)('asset upload on $engine', ({ create }) => {
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
    writeKey = (await store.keys.create({ teamId, name: 'httpx', scope: 'write' })).secret;
    readKey = (await store.keys.create({ teamId, name: 'dashboard' })).secret;
    const other = (await store.teams.ensure('partners')).id;
    otherTeamKey = (await store.keys.create({ teamId: other, name: 'partner', scope: 'write' })).secret;
  });
  afterAll(() => served?.close());

  const post = (query: string, body: Buffer | string, key = writeKey) =>
    send(api.url, 'POST', `/v1/assets?${query}`, httpxHeaders(key), body);
  const patch = (id: string, query: string, body: Buffer | string, key = writeKey) =>
    send(api.url, 'PATCH', `/v1/assets/${id}/contents?${query}`, httpxHeaders(key), body);

  it('keeps every chunk of an httpx upload, which PATCHes its later chunks without upload_type', async () => {
    const lines = Array.from({ length: 3000 }, (_, n) => httpxLine(n));
    const { chunks, sent } = chunksOf([...lines, lines[0] ?? '']);
    const distinct = new Set(sent).size;
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(sent.length - distinct).toBe(1);
    expect(chunks[0]?.length).toBeGreaterThan(3.9 * 1024 * 1024);
    const [first, ...rest] = chunks;
    const created = await post(`${PDTM_QUERY}&name=edge-hosts`, first ?? '');
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      message: 'Successfully uploaded asset',
      upload_status: 'completed',
      asset_id: expect.stringMatching(/^[a-z0-9]{20}$/),
      uploaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      name: 'edge-hosts',
    });
    let duplicates = 0;
    for (const chunk of rest) {
      const appended = await patch(created.body.asset_id, PDTM_QUERY, chunk);
      expect(appended.status).toBe(200);
      expect(appended.body.message).toBe('Successfully appended to asset');
      duplicates += appended.body.duplicates;
    }
    expect(duplicates).toBe(1);
    const listed = await api.get('/v1/assets?search=edge-hosts', readKey);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ asset_id: created.body.asset_id, name: 'edge-hosts', asset_count: distinct }),
    ]);
    const targets = await store.assets.targets(created.body.asset_id, teamId);
    const urls = [...new Set(sent)].map((line) => JSON.parse(line).url);
    expect(targets).toEqual(urls);
  });

  it('keeps every target of appends sent at once, each once and at its own position', async () => {
    const created = await post('name=parallel', 'seed.test\n');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        patch(
          created.body.asset_id,
          'upload_type=append',
          `p${n}a.test\np${n}b.test\nSEED.test\nshared.test\n`,
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const targets = await store.assets.targets(created.body.asset_id, teamId);
    expect(targets).toHaveLength(14);
    expect(new Set(targets).size).toBe(14);
    expect(answers.reduce((sum, a) => sum + a.body.duplicates, 0)).toBe(6 + 5);
  });

  it('replaces the targets only when the PATCH says upload_type=replace', async () => {
    const created = await post('name=replaced', 'a.test\nb.test\n');
    expect(created.body.asset_count).toBe(2);
    const replaced = await patch(created.body.asset_id, `${PDTM_QUERY}&upload_type=replace`, 'c.test\n');
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ message: 'Successfully replaced asset', asset_count: 1 });
    expect(await store.assets.targets(created.body.asset_id, teamId)).toEqual(['c.test']);
    const typo = await patch(created.body.asset_id, 'upload_type=overwrite', 'd.test\n');
    expect(typo).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'upload_type' } });
    expect(typo.body.message).toContain('append, replace');
    expect(await store.assets.targets(created.body.asset_id, teamId)).toEqual(['c.test']);
  });

  it('reads plain target lists as `keyhole assets upload` does, and stores nothing when a line is bad', async () => {
    const body = '# edge\nhttps://a.test\nA.TEST:443\nhttps://a.test:443\nbad host\n[::1]:8443\n';
    const refused = await post('name=typo', body);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: expect.stringContaining('line 5'), code: 'invalid_body' });
    expect((await api.get('/v1/assets?search=typo', readKey)).body.data).toEqual([]);
    const skipped = await post('name=typo&skip_invalid=true', body);
    expect(skipped.status).toBe(200);
    expect(skipped.body).toMatchObject({ asset_count: 3, duplicates: 1 });
  });

  it('refuses an httpx line without a url and a body with no target', async () => {
    const noUrl = await post('name=x', '{"status_code": 200}\n');
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.message).toContain('"url"');
    const empty = await post('name=x', '# nothing\n\n');
    expect(empty).toMatchObject({ status: 400, body: { code: 'invalid_body' } });
  });

  it('answers 403 to a read key and 404 to another team’s key, changing nothing', async () => {
    const created = await post('name=ours', 'ours.test\n');
    const reader = await patch(created.body.asset_id, 'upload_type=append', 'x.test\n', readKey);
    expect(reader).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect((await post('name=theirs', 'x.test\n', readKey)).status).toBe(403);
    for (const query of ['upload_type=append', '']) {
      const intruder = await patch(created.body.asset_id, query, 'evil.test\n', otherTeamKey);
      expect(intruder).toMatchObject({ status: 404, body: { code: 'not_found' } });
    }
    expect(await store.assets.targets(created.body.asset_id, teamId)).toEqual(['ours.test']);
  });

  it('still answers 405 to the methods /v1/assets does not take, naming POST among those it does', async () => {
    const put = await fetch(`${api.url}/v1/assets`, { method: 'PUT', headers: { 'X-API-Key': writeKey } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});
