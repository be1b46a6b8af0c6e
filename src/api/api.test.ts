import { Writable } from 'node:stream';
import fc from 'fast-check';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import type { Store } from '../store/index.js';
import { ENGINES } from '../store/testing/databases.js';
import { type RateCounts, WindowCounts } from './rate-counts.js';
import { ASSET_FIELDS, fieldProblems, retestProblems, scanProblems } from './testing/fields.js';
import { type RunningApi, type ServedDatabase, serveApi, serveDatabase } from './testing/serve.js';

function event(n: number, overrides: Partial<ResultEvent> = {}): ResultEvent {
  return {
    'template-id': 'git-config',
    info: {
      name: 'Git Config',
      author: ['pdteam'],
      tags: null,
      severity: 'medium',
      classification: { 'cve-id': null, 'cwe-id': ['cwe-200'] },
    },
    type: 'http',
    host: 'app.test',
    'matched-at': `https://app.test/${n}/.git/config`,
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': true,
    ...overrides,
  };
}

describe.each(ENGINES)('/v1 API on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;
  let teamId: string;
  let key: string;

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
    teamId = (await store.teams.ensure('default')).id;
    key = (await store.keys.create({ teamId, name: 'tests' })).secret;
  });
  afterAll(() => served?.close());

  describe('authentication', () => {
    it.each(['/v1/scans', '/v1/assets', '/v1/retest?offset=0&limit=1'])(
      'answers 401 with a JSON body without a key on %s',
      async (path) => {
        const response = await api.get(path);
        expect(response.status).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/application\/json/);
        expect(response.body).toEqual({
          message: expect.stringContaining('X-API-Key'),
          code: 'unauthorized',
        });
      },
    );

    it('answers 401 to a wrong key and to a well-formed unknown key', async () => {
      expect((await api.get('/v1/scans', 'wrong')).status).toBe(401);
      const unknown = `kh_${'A'.repeat(43)}`;
      const response = await api.get('/v1/scans', unknown);
      expect(response).toMatchObject({
        status: 401,
        body: { code: 'unauthorized', message: 'invalid or revoked API key' },
      });
    });

    it('answers 401 to a revoked key', async () => {
      const created = await store.keys.create({ teamId, name: 'short-lived' });
      expect((await api.get('/v1/scans', created.secret)).status).toBe(200);
      await store.keys.revoke(created.key.id);
      expect(await api.get('/v1/scans', created.secret)).toMatchObject({
        status: 401,
        body: { code: 'unauthorized' },
      });
    });

    it('reads the key header whatever its case', async () => {
      for (const name of ['x-api-key', 'X-Api-Key', 'X-API-KEY']) {
        expect((await api.get('/v1/assets', undefined, { [name]: key })).status).toBe(200);
      }
    });

    it('serves /healthz without a key', async () => {
      expect(await api.get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    });
  });

  describe('pagination parameters', () => {
    it.each(['offset', 'limit'])(
      'answers 400 naming %s when retest is called without it',
      async (missing) => {
        const query = missing === 'offset' ? 'limit=10' : 'offset=0';
        const response = await api.get(`/v1/retest?${query}`, key);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          message: expect.stringContaining(missing),
          code: 'invalid_parameter',
          param: missing,
        });
      },
    );

    const badLimits = ['0', '1001', '-1', 'abc', '1.5', '', '1e2', '0x10', ' 5'];
    for (const path of ['/v1/scans', '/v1/assets', '/v1/retest']) {
      it.each(badLimits)(`answers 400 to limit=%j on ${path}`, async (value) => {
        const response = await api.get(`${path}?offset=0&limit=${encodeURIComponent(value)}`, key);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
        expect(response.body.message).toMatch(/^limit: must be an integer from 1 to 1000/);
      });

      it(`answers 400 to offset=-1 on ${path}`, async () => {
        const response = await api.get(`${path}?offset=-1&limit=10`, key);
        expect(response).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'offset' } });
      });
    }

    const pastTheLargest = [
      '9007199254740992',
      '9223372036854775807',
      '9223372036854775808',
      '9'.repeat(400),
    ];
    const everyList = [
      '/v1/scans?',
      '/v1/scans?status=running&',
      '/v1/scans?sort_asc=name&sort_desc=severity&',
      '/v1/scans?search=scan&',
      '/v1/assets?',
      '/v1/assets?search=hosts&',
      '/v1/retest?limit=10&',
    ];
    it.each(pastTheLargest)(
      'answers 400 naming offset to offset=%s on every list, filtered or not',
      async (value) => {
        for (const path of everyList) {
          const response = await api.get(`${path}offset=${value}`, key);
          expect({ path, status: response.status, body: response.body }).toMatchObject({
            path,
            status: 400,
            body: { code: 'invalid_parameter', param: 'offset' },
          });
          expect(response.body.message).toMatch(
            /^offset: must be an integer from 0 to 9007199254740991; got "\d+/,
          );
          expect(response.body.message).toContain(value.slice(0, 20));
        }
      },
    );

    it('accepts the largest offset, 2^53 - 1, on every list, filtered or not', async () => {
      for (const path of everyList) {
        const response = await api.get(`${path}offset=9007199254740991`, key);
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        expect(response.body.data ?? response.body.results).toEqual([]);
      }
    });

    it.each(['/v1/scans', '/v1/assets'])('answers 400 naming search to a NUL in it on %s', async (path) => {
      for (const search of ['%00', 'a%00b', `${'a'.repeat(200)}%00`]) {
        const response = await api.get(`${path}?search=${search}`, key);
        expect(response).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'search' } });
        expect(response.body.message).toContain('search: must not contain NUL');
      }
    });

    it('answers any query string with a JSON error or a page, never a 5xx', async () => {
      const percentEncoded = (bytes: Uint8Array) =>
        [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
      const utf8 = (text: string) => percentEncoded(new TextEncoder().encode(text));
      const value = fc.oneof(
        fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }).map(String),
        fc.constantFrom(
          ...['', '0', '-0', '+1', '1.0', '1e3', 'NaN', 'Infinity', '0x10', '%201', '9007199254740991'],
          ...['9223372036854775808', 'running', 'running,finished', 'name,severity', 'created_at'],
          ...['%', '%zz', '%00', '%C0%80', '%ED%A0%80', '%FF', '%E6%9D%B1', '%F0%9F%94%91'],
        ),
        fc.string({ unit: 'binary', maxLength: 40 }).map(utf8),
        fc.uint8Array({ maxLength: 40 }).map(percentEncoded),
      );
      const name = fc.oneof(
        {
          weight: 6,
          arbitrary: fc.constantFrom('offset', 'limit', 'search', 'status', 'sort_asc', 'sort_desc'),
        },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }).map(utf8) },
      );
      const query = fc
        .array(fc.tuple(name, value), { maxLength: 6 })
        .map((pairs) => pairs.map(([n, v]) => `${n}=${v}`).join('&'));
      const path = fc.constantFrom('/v1/scans', '/v1/assets', '/v1/retest', '/v1/retest?offset=0&limit=5');
      await fc.assert(
        fc.asyncProperty(path, query, async (path, query) => {
          const response = await api.get(`${path}${path.includes('?') ? '&' : '?'}${query}`, key);
          expect(response.status).toBeLessThan(500);
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          if (response.status !== 200) {
            expect(response.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
          }
        }),
        {
          numRuns: 300,
          examples: [
            ['/v1/scans', 'offset=9223372036854775808&status=running'],
            ['/v1/assets', 'search=%00'],
          ],
        },
      );
    });

    it('answers 400 to a repeated parameter and to an unknown one', async () => {
      expect((await api.get('/v1/scans?limit=1&limit=2', key)).body).toMatchObject({ param: 'limit' });
      const unknown = await api.get('/v1/scans?stauts=running', key);
      expect(unknown).toMatchObject({ status: 400, body: { param: 'stauts' } });
      expect(unknown.body.message).toContain('status');
    });

    it('accepts the limits 1 and 1000 and defaults scans and assets to offset 0, limit 100', async () => {
      expect((await api.get('/v1/scans?limit=1', key)).status).toBe(200);
      expect((await api.get('/v1/retest?offset=0&limit=1000', key)).status).toBe(200);
      expect((await api.get('/v1/assets', key)).status).toBe(200);
    });
  });

  describe('listing scans', () => {
    const ids: string[] = [];

    beforeAll(async () => {
      const team = (await store.teams.ensure('listing')).id;
      const statuses = ['queued', 'starting', 'running', 'finished', 'failed', 'uploaded'] as const;
      for (let i = 0; i < 45; i++) {
        const status = statuses[i % statuses.length]!;
        const scan = await store.scans.create({
          teamId: team,
          name: `scan ${String(i).padStart(2, '0')}`,
          status: status === 'uploaded' ? 'uploaded' : status === 'queued' ? 'queued' : 'starting',
        });
        if (status === 'running' || status === 'finished' || status === 'failed')
          await store.scans.markRunning(scan.id);
        if (status === 'finished') await store.scans.finish(scan.id);
        if (status === 'failed') await store.scans.fail(scan.id, 'target unreachable');
        ids.push(scan.id);
      }
      listingKey = (await store.keys.create({ teamId: team, name: 'listing' })).secret;
    });
    let listingKey = '';

    it('pages newest first with no duplicate and no gap', async () => {
      const all = await api.get('/v1/scans?limit=1000', listingKey);
      const whole: { scan_id: string; created_at: string }[] = all.body.data;
      expect(whole).toHaveLength(45);
      const sorted = [...whole].sort((a, b) =>
        a.created_at === b.created_at
          ? a.scan_id < b.scan_id
            ? 1
            : -1
          : a.created_at < b.created_at
            ? 1
            : -1,
      );
      expect(whole.map((s) => s.scan_id)).toEqual(sorted.map((s) => s.scan_id));
      const paged: string[] = [];
      for (let offset = 0; offset < 50; offset += 7) {
        const page = await api.get(`/v1/scans?offset=${offset}&limit=7`, listingKey);
        paged.push(...page.body.data.map((s: { scan_id: string }) => s.scan_id));
      }
      expect(paged).toEqual(whole.map((s) => s.scan_id));
      expect(new Set(paged).size).toBe(45);
      expect(new Set(paged)).toEqual(new Set(ids));
    });

    it('filters by one status and by a comma-separated list', async () => {
      const running = await api.get('/v1/scans?status=running&limit=1000', listingKey);
      expect(running.body.data.length).toBeGreaterThan(0);
      expect(running.body.data.every((s: { status: string }) => s.status === 'running')).toBe(true);
      const ended = await api.get('/v1/scans?status=finished,failed&limit=1000', listingKey);
      expect(new Set(ended.body.data.map((s: { status: string }) => s.status))).toEqual(
        new Set(['finished', 'failed']),
      );
      expect(ended.body.data.find((s: { status: string }) => s.status === 'failed').failure_reason).toBe(
        'target unreachable',
      );
    });

    it('answers 400 listing the allowed statuses for an unknown one', async () => {
      const response = await api.get('/v1/scans?status=running,paused', listingKey);
      expect(response).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'status' } });
      expect(response.body.message).toBe(
        'status: unknown value "paused"; allowed: failed, finished, queued, running, starting, uploaded (one or a comma-separated list)',
      );
    });

    it('sorts by allowed fields and refuses others', async () => {
      const byName = await api.get('/v1/scans?sort_asc=name&limit=5', listingKey);
      expect(byName.body.data.map((s: { name: string }) => s.name)).toEqual([
        'scan 00',
        'scan 01',
        'scan 02',
        'scan 03',
        'scan 04',
      ]);
      const desc = await api.get('/v1/scans?sort_desc=name&limit=2', listingKey);
      expect(desc.body.data.map((s: { name: string }) => s.name)).toEqual(['scan 44', 'scan 43']);
      const bad = await api.get('/v1/scans?sort_asc=password', listingKey);
      expect(bad).toMatchObject({ status: 400, body: { param: 'sort_asc' } });
      expect(bad.body.message).toContain('created_at');
      expect((await api.get('/v1/scans?sort_asc=name&sort_desc=name', listingKey)).status).toBe(400);
    });
  });

  describe('search', () => {
    const names = [
      '100% done',
      '100 percent',
      'a_b',
      'axb',
      "it's",
      'say "hi"',
      'back\\slash',
      'Ünïcödé Scan',
      '東京 scan',
      'plain',
    ];
    let searchKey = '';

    beforeAll(async () => {
      const team = (await store.teams.ensure('search')).id;
      for (const name of names) {
        await store.scans.create({ teamId: team, name });
        await store.assets.create({ teamId: team, name, targets: ['a.test'] });
      }
      searchKey = (await store.keys.create({ teamId: team, name: 'search' })).secret;
    });

    it.each([
      ['%', ['100% done']],
      ['_', ['a_b']],
      ["'", ["it's"]],
      ['"', ['say "hi"']],
      ['\\', ['back\\slash']],
      ['ünïcödé', ['Ünïcödé Scan']],
      ['東京', ['東京 scan']],
      ['SCAN', ['Ünïcödé Scan', '東京 scan']],
      ['no such name', []],
    ])('matches %j literally and case-insensitively', async (term, expected) => {
      for (const path of ['/v1/scans', '/v1/assets']) {
        const response = await api.get(`${path}?search=${encodeURIComponent(term)}`, searchKey);
        expect(response.status).toBe(200);
        expect(response.body.data.map((s: { name: string }) => s.name).sort()).toEqual([...expected].sort());
      }
    });

    it('refuses a search term over 256 characters', async () => {
      expect((await api.get(`/v1/scans?search=${'a'.repeat(256)}`, searchKey)).status).toBe(200);
      const long = await api.get(`/v1/assets?search=${'a'.repeat(257)}`, searchKey);
      expect(long).toMatchObject({ status: 400, body: { param: 'search' } });
    });
  });

  describe('response fields', () => {
    it('gives every field of docs/store-and-api.md#response-fields with its type, and lists never null, on every endpoint', async () => {
      const team = (await store.teams.ensure('fields')).id;
      const fieldsKey = (await store.keys.create({ teamId: team, name: 'fields' })).secret;
      const list = await store.assets.create({ teamId: team, name: 'hosts', targets: ['app.test'] });
      const scan = await store.scans.create({
        teamId: team,
        name: 'full',
        targets: ['https://app.test'],
        assetIds: [list.id],
        templates: [
          {
            id: 'git-config',
            content: 'id: git-config',
            url: 'https://cloud.projectdiscovery.io/public/git-config',
            isPublic: true,
          },
        ],
      });
      await store.scans.create({ teamId: team, name: 'bare' });
      await store.scans.markRunning(scan.id);
      const { finding } = await store.findings.add(scan.id, event(1));
      await store.retests.record({ vulnId: finding.id, resultType: 'matched', events: [event(1)] });
      await store.retests.record({ vulnId: finding.id, resultType: 'error', events: [] });
      await store.retests.record({
        vulnId: finding.id,
        resultType: 'not_matched',
        events: [
          {
            'template-id': 'git-config',
            info: { author: null, tags: null, severity: '' },
            type: 'http',
            timestamp: '2024-03-14T10:21:36Z',
            'matcher-status': false,
          },
        ],
      });

      const scans = await api.get('/v1/scans', fieldsKey);
      const assets = await api.get('/v1/assets', fieldsKey);
      const retests = await api.get('/v1/retest?offset=0&limit=10', fieldsKey);
      expect(scans.body.data).toHaveLength(2);
      expect(retests.body.results).toHaveLength(3);
      const problems = [
        ...scans.body.data.flatMap((s: unknown, i: number) => scanProblems(s, `scans[${i}]`)),
        ...assets.body.data.flatMap((a: unknown, i: number) =>
          fieldProblems(a, ASSET_FIELDS, `assets[${i}]`),
        ),
        ...retests.body.results.flatMap((r: unknown, i: number) => retestProblems(r, `retest[${i}]`)),
      ];
      expect(problems).toEqual([]);
      expect(typeof scans.body.message).toBe('string');
      expect(typeof retests.body.message).toBe('string');
      const full = scans.body.data.find((s: { name: string }) => s.name === 'full');
      expect(full).toMatchObject({
        asset_ids: [list.id],
        template_ids: ['git-config'],
        public_templates: ['git-config'],
        scan_frequency: 'once',
        completed_at: '',
      });
      expect(full.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(retests.body.results[2]).toMatchObject({
        result_type: 'matched',
        matcher_status: true,
        vuln_status: 'open',
        vuln_id: finding.id,
        template_encoded: Buffer.from('id: git-config').toString('base64'),
      });
      expect(retests.body.results[0]).toMatchObject({
        result_type: 'not_matched',
        matcher_status: false,
        vuln_status: 'fixed',
      });
      expect(retests.body.results[2].event[0].info.classification['cve-id']).toEqual([]);
    });
  });

  it("never shows team A's key a row of team B, whatever the data", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            team: fc.constantFrom('a', 'b'),
            kind: fc.constantFrom('scan', 'asset', 'retest'),
            name: fc.string({ maxLength: 12 }),
          }),
          { maxLength: 12 },
        ),
        fc.string({ maxLength: 3 }),
        async (rows, search) => {
          const run = Math.random().toString(36).slice(2);
          const teams = {
            a: (await store.teams.ensure(`prop-a-${run}`)).id,
            b: (await store.teams.ensure(`prop-b-${run}`)).id,
          };
          const owner = new Map<string, string>();
          for (const row of rows) {
            const team = teams[row.team];
            const scan = await store.scans.create({ teamId: team, name: row.name });
            owner.set(scan.id, team);
            if (row.kind === 'asset')
              owner.set(
                (await store.assets.create({ teamId: team, name: row.name, targets: ['x.test'] })).id,
                team,
              );
            if (row.kind === 'retest') {
              await store.scans.markRunning(scan.id);
              const { finding } = await store.findings.add(scan.id, event(1));
              owner.set(finding.id, team);
              await store.retests.record({ vulnId: finding.id, resultType: 'matched', events: [event(1)] });
            }
          }
          const keyA = (await store.keys.create({ teamId: teams.a, name: 'a' })).secret;
          const q = `search=${encodeURIComponent(search)}&limit=1000`;
          const seen = [
            ...(await api.get(`/v1/scans?${q}`, keyA)).body.data.map((s: { scan_id: string }) => s.scan_id),
            ...(await api.get(`/v1/assets?${q}`, keyA)).body.data.map(
              (s: { asset_id: string }) => s.asset_id,
            ),
            ...(await api.get('/v1/retest?offset=0&limit=1000', keyA)).body.results.flatMap(
              (r: { vuln_id: string; scan_id: string }) => [r.vuln_id, r.scan_id],
            ),
          ];
          for (const id of seen) expect(owner.get(id)).toBe(teams.a);
          const expectedScans = rows.filter(
            (r) => r.team === 'a' && r.name.toLowerCase().includes(search.toLowerCase()),
          ).length;
          expect((await api.get(`/v1/scans?${q}`, keyA)).body.data).toHaveLength(expectedScans);
        },
      ),
      { numRuns: 15 },
    );
  });

  describe('errors', () => {
    it('answers JSON 404 for an unknown route and 405 for a wrong method', async () => {
      expect(await api.get('/v1/scan', key)).toMatchObject({ status: 404, body: { code: 'not_found' } });
      const put = await fetch(`${api.url}/v1/scans`, { method: 'PUT', headers: { 'X-API-Key': key } });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
      expect(await put.json()).toMatchObject({ code: 'method_not_allowed' });
    });

    it('answers 500 with an error id and no internals when stored data is broken', async () => {
      const team = (await store.teams.ensure('broken')).id;
      const brokenKey = (await store.keys.create({ teamId: team, name: 'broken' })).secret;
      const scan = await store.scans.create({ teamId: team, name: 'broken' });
      await store.scans.markRunning(scan.id);
      const { finding } = await store.findings.add(scan.id, event(9));
      const retest = await store.retests.record({ vulnId: finding.id, resultType: 'matched', events: [] });
      // A result recorded before migration 0006 (no served events), whose raw events are broken.
      await sql`update retest set events = ${'{not json'}, served_events = null, served_fields = null where id = ${retest.id}`.execute(
        store.connection.db,
      );
      const response = await api.get('/v1/retest?offset=0&limit=10', brokenKey);
      expect(response.status).toBe(500);
      expect(Object.keys(response.body).sort()).toEqual(['code', 'error_id', 'message']);
      expect(response.body.error_id).toMatch(/^[0-9a-v]{20}$/);
      expect(JSON.stringify(response.body)).not.toMatch(/JSON|SyntaxError|at /);
    });

    it('answers 429 with Retry-After once a key exceeds its rate, per key', async () => {
      const limited = await serveApi(store, { rateLimit: 3 });
      try {
        const other = (await store.keys.create({ teamId, name: 'other' })).secret;
        for (let i = 0; i < 3; i++) expect((await limited.get('/v1/assets', key)).status).toBe(200);
        const over = await limited.get('/v1/assets', key);
        expect(over).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await limited.get('/v1/assets', other)).status).toBe(200);
      } finally {
        await limited.close();
      }
    });

    it('holds a key’s rate across servers that count its requests together', async () => {
      const together = new WindowCounts();
      // One counts as `serve --processes` does, through an answer that comes later.
      const asked: RateCounts = { count: async (key, windowMs) => together.count(key, windowMs) };
      const servers = [
        await serveApi(store, { rateLimit: 4, rateCounts: together }),
        await serveApi(store, { rateLimit: 4, rateCounts: asked }),
      ];
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await servers[i % 2]!.get('/v1/assets', key)).status);
        expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
        const last = await servers[1]!.get('/v1/assets', key);
        expect(last.headers.get('x-ratelimit-limit')).toBe('4');
        expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
      } finally {
        for (const server of servers) await server.close();
      }
    });
  });

  it('publishes an OpenAPI 3.1 document of every endpoint', async () => {
    const response = await api.get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths).sort()).toEqual([
      '/healthz',
      '/v1/assets',
      '/v1/assets/{asset_id}/contents',
      '/v1/retest',
      '/v1/retest/requests/{request_id}',
      '/v1/scans',
      '/v1/scans/import',
      '/v1/scans/result/{scan_id}',
      '/v1/scans/results',
      '/v1/scans/vuln/{vuln_id}',
      '/v1/scans/vulns',
      '/v1/scans/{id}/import',
      '/v1/scans/{scan_id}',
      '/v1/scans/{scan_id}/export',
      '/v1/scans/{vuln_id}/retest',
      '/v1/user',
    ]);
    const retest = response.body.paths['/v1/retest'].get;
    expect(
      retest.parameters
        .filter((p: { required?: boolean }) => p.required)
        .map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(['limit', 'offset']);
    expect(response.body.components.securitySchemes['X-API-Key']).toMatchObject({
      type: 'apiKey',
      in: 'header',
    });
  });

  it('logs requests as JSON without the API key', async () => {
    let logs = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += chunk.toString();
        done();
      },
    });
    const logged = await serveApi(store, { logger: pino({ level: 'info' }, sink) });
    try {
      await logged.get('/v1/scans', key);
      await logged.get('/v1/scans?limit=0', key);
      await logged.get('/v1/scans', `${key}x`);
    } finally {
      await logged.close();
    }
    expect(logs).toContain('"msg":"request completed"');
    expect(logs).not.toContain(key.slice(3));
    for (const line of logs.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe.each(ENGINES)('page cache on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;

  beforeAll(async () => {
    served = await serveDatabase(await create(), { cache: true });
    ({ store, api } = served);
  });
  afterAll(() => served?.close());

  it('serves a page again while nothing changed, and a fresh one after any write', async () => {
    const team = (await store.teams.ensure('cache')).id;
    const key = (await store.keys.create({ teamId: team, name: 'cache' })).secret;
    await store.scans.create({ teamId: team, name: 'first' });
    const first = await api.get('/v1/scans', key);
    const again = await api.get('/v1/scans', key);
    expect(again.body).toEqual(first.body);
    await store.scans.create({ teamId: team, name: 'second' });
    const after = await api.get('/v1/scans', key);
    expect(after.body.data.map((s: { name: string }) => s.name)).toEqual(['second', 'first']);
    expect(after.headers.get('x-cache')).toBeNull();
    const other = (await store.teams.ensure('cache-other')).id;
    const otherKey = (await store.keys.create({ teamId: other, name: 'other' })).secret;
    expect((await api.get('/v1/scans', otherKey)).body.data).toEqual([]);
    await store.keys.revoke((await store.keys.list()).find((k) => k.name === 'cache')!.id);
    expect((await api.get('/v1/scans', key)).status).toBe(401);
  });

  /**
   * A page fetched twice, the second time from the cache. On PostgreSQL the change token moves
   * with writes anywhere on the server (other test files write too), so this tries a few times.
   */
  async function servedTwice(path: string, key: string): Promise<[Response, Response]> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const first = await fetch(`${api.url}${path}`, { headers: { 'X-API-Key': key } });
      const again = await fetch(`${api.url}${path}`, { headers: { 'X-API-Key': key } });
      if (again.headers.get('x-cache') === 'hit') return [first, again];
    }
    throw new Error(`${path} was never served from the cache`);
  }

  it("never serves a team's cached page to another team's key for the same URL", async () => {
    const teamA = (await store.teams.ensure('isolated-a')).id;
    const teamB = (await store.teams.ensure('isolated-b')).id;
    const keyA = (await store.keys.create({ teamId: teamA, name: 'a' })).secret;
    const keyB = (await store.keys.create({ teamId: teamB, name: 'b' })).secret;
    await store.scans.create({ teamId: teamA, name: 'scan of a' });
    await store.scans.create({ teamId: teamB, name: 'scan of b' });
    const names = (body: { data: { name: string }[] }) => body.data.map((s) => s.name);
    const [, cachedForA] = await servedTwice('/v1/scans?limit=5', keyA);
    expect(names(JSON.parse(await cachedForA.text()))).toEqual(['scan of a']);
    const forB = await api.get('/v1/scans?limit=5', keyB);
    expect(forB.headers.get('x-cache')).toBeNull();
    expect(names(forB.body)).toEqual(['scan of b']);
  });

  it('shows a retest result recorded after the page was served', async () => {
    const team = (await store.teams.ensure('retests')).id;
    const key = (await store.keys.create({ teamId: team, name: 'retests' })).secret;
    const scan = await store.scans.create({ teamId: team, name: 'retested' });
    const { finding } = await store.findings.add(scan.id, event(1));
    expect((await api.get('/v1/retest?offset=0&limit=10', key)).body.results).toEqual([]);
    await store.retests.record({ vulnId: finding.id, resultType: 'not_matched', events: [] });
    const after = await api.get('/v1/retest?offset=0&limit=10', key);
    expect(after.headers.get('x-cache')).toBeNull();
    expect(after.body.results.map((r: { vuln_id: string }) => r.vuln_id)).toEqual([finding.id]);
  });

  it('sends a cached page with the same bytes and headers as the first answer', async () => {
    const team = (await store.teams.ensure('bytes')).id;
    const key = (await store.keys.create({ teamId: team, name: 'bytes' })).secret;
    await store.scans.create({ teamId: team, name: 'ünïcode scan' });
    const [first, again] = await servedTwice('/v1/scans', key);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('content-length')).toBe(first.headers.get('content-length'));
    expect(await again.text()).toBe(await first.text());
  });
});
