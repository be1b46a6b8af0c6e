import { Writable } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent, Severity } from '../../event/index.js';
import { REDACTED } from '../../secretfile/index.js';
import type { Finding, Store, VulnStatus } from '../../store/index.js';
import { ENGINES } from '../../store/testing/databases.js';
import { ErrorBody, ScanItem } from '../schemas.js';
import { type RunningApi, type ServedDatabase, serveApi, serveDatabase } from '../testing/serve.js';
import { ResultsResponse, VulnResponse } from './results-schemas.js';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

function event(team: string, n: number): ResultEvent {
  const host = `${team}-${n % 3}.example.test`;
  return {
    'template-id': n % 2 === 0 ? 'exposed-panel' : 'git-config',
    info: {
      name: `Finding ${n} of ${team}`,
      author: ['pdteam'],
      tags: ['exposure'],
      severity: SEVERITIES[n % SEVERITIES.length] ?? 'info',
      description: 'A description',
      reference: ['https://example.test/ref'],
    },
    type: 'http',
    host,
    'matched-at': `https://${host}/${n}`,
    request: `GET /${n} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${REDACTED}\r\n\r\n`,
    response: `HTTP/1.1 200 OK\r\nSet-Cookie: session=${REDACTED}\r\n\r\n<html>${team}</html>`,
    'curl-command': `curl -X 'GET' -H 'Authorization: Bearer ${REDACTED}' 'https://${host}/${n}'`,
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': true,
  };
}

function valid(schema: TSchema, body: unknown): void {
  const errors = [...Value.Errors(schema, body)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
}

interface SeededTeam {
  readonly id: string;
  readonly key: string;
  readonly scans: string[];
  readonly findings: Finding[];
}

describe.each(ENGINES)('findings reads on $engine', ({ create }) => {
  let served: ServedDatabase | undefined;
  let store: Store;
  let api: RunningApi;
  const teams: SeededTeam[] = [];

  beforeAll(async () => {
    served = await serveDatabase(await create());
    ({ store, api } = served);
    for (const [t, name] of ['red', 'green', 'blue'].entries()) {
      const team = await store.teams.ensure(name);
      const { secret } = await store.keys.create({ teamId: team.id, name: `${name} key` });
      const seeded: SeededTeam = { id: team.id, key: secret, scans: [], findings: [] };
      for (let s = 0; s < 2; s++) {
        const scan = await store.scans.create({
          teamId: team.id,
          name: `${name} scan ${s}`,
          status: 'uploaded',
        });
        seeded.scans.push(scan.id);
        const count = 6 + t * 3 + s;
        await store.findings.addMany(
          scan.id,
          Array.from({ length: count }, (_, n) => event(name, s * 100 + n)),
        );
        for await (const finding of store.findings.allOfScan(scan.id)) seeded.findings.push(finding);
      }
      teams.push(seeded);
    }
    const red = teams[0];
    if (red === undefined) throw new Error('no team');
    const statuses: VulnStatus[] = ['fixed', 'false_positive'];
    for (const [i, finding] of red.findings.slice(0, 4).entries()) {
      await store.findings.setStatus(finding.id, statuses[i % 2] ?? 'fixed');
    }
    const triaged = await Promise.all(red.findings.map((f) => store.findings.get(f.id)));
    red.findings.splice(0, red.findings.length, ...triaged.filter((f) => f !== undefined));
  });
  afterAll(() => served?.close());

  const team = (i: number): SeededTeam => {
    const found = teams[i];
    if (found === undefined) throw new Error(`no team ${i}`);
    return found;
  };

  describe('GET /v1/scans/{scan_id}', () => {
    it('answers one of the team’s scans in the listing’s shape', async () => {
      const { key, scans } = team(0);
      const response = await api.get(`/v1/scans/${scans[1]}`, key);
      expect(response.status).toBe(200);
      valid(ScanItem, response.body);
      const listed = (await api.get('/v1/scans', key)).body.data.find(
        (scan: { scan_id: string }) => scan.scan_id === scans[1],
      );
      expect(response.body).toEqual(listed);
      expect(response.body.severity).toMatchObject({ critical: 2, high: 2, medium: 1, low: 1, info: 1 });
    });

    it.each(['dddddddddddddddddddd', 'not-an-id', 'results%2F..'])(
      'answers 404 to the unknown scan %s',
      async (id) => {
        const response = await api.get(`/v1/scans/${id}`, team(0).key);
        expect(response.status).toBe(404);
        valid(ErrorBody, response.body);
        expect(response.body.code).toBe('not_found');
      },
    );
  });

  describe('GET /v1/scans/results and /v1/scans/result/{scan_id}', () => {
    it('lists the team’s findings newest first, in ProjectDiscovery’s VulnerabilityResults envelope', async () => {
      const { key, findings } = team(0);
      const response = await api.get('/v1/scans/results', key);
      expect(response.status).toBe(200);
      valid(ResultsResponse, response.body);
      expect(response.body).toMatchObject({
        current_page: 1,
        result_count: findings.length,
        total_results: findings.length,
        total_pages: 1,
        message: expect.any(String),
      });
      const ids = findings
        .map((f) => f.id)
        .sort()
        .reverse();
      expect(response.body.data.map((item: { vuln_id: string }) => item.vuln_id)).toEqual(ids);
      const first = response.body.data[0];
      expect(first).toMatchObject({ matcher_status: true, result_type: 'matched', labels: [] });
      expect(first.event).toHaveLength(1);
      expect(first.event[0]['template-id']).toBe(first.template_id);
    });

    it('pages with offset and limit, counting pages', async () => {
      const { key, findings } = team(1);
      const all: string[] = [];
      for (let offset = 0; offset < findings.length; offset += 4) {
        const response = await api.get(`/v1/scans/results?offset=${offset}&limit=4`, key);
        valid(ResultsResponse, response.body);
        expect(response.body).toMatchObject({
          current_page: offset / 4 + 1,
          total_results: findings.length,
          total_pages: Math.ceil(findings.length / 4),
        });
        all.push(...response.body.data.map((item: { vuln_id: string }) => item.vuln_id));
      }
      expect(new Set(all).size).toBe(findings.length);
    });

    it('filters by severity, vuln_status, search and time, with totals to match', async () => {
      const { key, findings } = team(0);
      const cases: [string, (f: Finding) => boolean][] = [
        ['severity=critical,low', (f) => f.severity === 'critical' || f.severity === 'low'],
        ['vuln_status=fixed,false_positive', (f) => f.vulnStatus !== 'open'],
        ['vuln_status=open&severity=high', (f) => f.vulnStatus === 'open' && f.severity === 'high'],
        ['search=RED-1.EXAMPLE', (f) => f.target.startsWith('red-1.')],
        ['search=git-config', (f) => f.templateId === 'git-config'],
        ['time=last_day', () => true],
      ];
      for (const [query, keep] of cases) {
        const response = await api.get(`/v1/scans/results?${query}`, key);
        expect(response.status, query).toBe(200);
        valid(ResultsResponse, response.body);
        const want = findings
          .filter(keep)
          .map((f) => f.id)
          .sort();
        expect(response.body.data.map((item: { vuln_id: string }) => item.vuln_id).sort(), query).toEqual(
          want,
        );
        expect(response.body.total_results, query).toBe(want.length);
      }
    });

    it('lists one scan’s findings with the same filters', async () => {
      const { key, scans, findings } = team(2);
      const response = await api.get(`/v1/scans/result/${scans[1]}?severity=critical,high`, key);
      valid(ResultsResponse, response.body);
      const want = findings
        .filter((f) => f.scanId === scans[1] && (f.severity === 'critical' || f.severity === 'high'))
        .map((f) => f.id)
        .sort();
      expect(response.body.data.map((item: { vuln_id: string }) => item.vuln_id).sort()).toEqual(want);
      expect(response.body.total_results).toBe(want.length);
    });

    it.each([
      [
        'severity=urgent',
        'severity',
        /unknown value "urgent"; allowed: info, low, medium, high, critical, unknown/,
      ],
      ['vuln_status=closed', 'vuln_status', /unknown value "closed"; allowed: open, fixed/],
      ['time=yesterday', 'time', /time: must be one of: last_day, last_week, last_month/],
      ['limit=1001', 'limit', /limit: must be an integer from 1 to 1000/],
      ['host=a.test', 'host', /unknown query parameter "host"; this endpoint takes: offset, limit, severity/],
    ])('answers 400 to %s naming the parameter', async (query, param, message) => {
      for (const path of ['/v1/scans/results', `/v1/scans/result/${team(0).scans[0]}`]) {
        const response = await api.get(`${path}?${query}`, team(0).key);
        expect(response.status).toBe(400);
        valid(ErrorBody, response.body);
        expect(response.body.param).toBe(param);
        expect(response.body.message).toMatch(message);
      }
    });
  });

  describe('GET /v1/scans/vuln/{vuln_id}', () => {
    it('answers one finding with its event as stored, redacted as stored', async () => {
      const { key, findings } = team(1);
      const finding = findings[3];
      if (finding === undefined) throw new Error('no finding');
      const response = await api.get(`/v1/scans/vuln/${finding.id}`, key);
      expect(response.status).toBe(200);
      valid(VulnResponse, response.body);
      expect(response.body).toMatchObject({
        id: finding.id,
        vuln_id: finding.id,
        scan_id: finding.scanId,
        vuln_hash: finding.vulnHash,
        description: 'A description',
        reference: ['https://example.test/ref'],
      });
      for (const field of ['request', 'response', 'curl-command'] as const) {
        expect(response.body.event[field]).toBe(finding.event[field]);
        expect(response.body.event[field]).toContain(REDACTED);
      }
    });
  });

  describe('GET /v1/scans/{scan_id}/export', () => {
    it('exports a scan’s findings as a JSON array of its events by default', async () => {
      const { key, scans, findings } = team(0);
      const response = await api.raw(`/v1/scans/${scans[0]}/export`, { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['content-disposition']).toBe(
        `attachment; filename="keyhole-scan-${scans[0]}.json"`,
      );
      const events = JSON.parse(response.body.toString('utf8')) as ResultEvent[];
      const ofScan = findings.filter((f) => f.scanId === scans[0]);
      expect(events.map((e) => e['matched-at']).sort()).toEqual(
        ofScan.map((f) => f.event['matched-at']).sort(),
      );
      expect(events[0]?.request).toContain(REDACTED);
    });

    it('exports a row per finding with type=csv', async () => {
      const { key, scans, findings } = team(0);
      const response = await api.raw(`/v1/scans/${scans[1]}/export?type=csv`, { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/csv/);
      const lines = response.body.toString('utf8').trimEnd().split('\r\n');
      expect(lines[0]).toMatch(/^vuln_id,status,template_id,/);
      expect(lines).toHaveLength(1 + findings.filter((f) => f.scanId === scans[1]).length);
    });

    it('answers 400 to a type it does not make', async () => {
      const response = await api.get(`/v1/scans/${team(0).scans[0]}/export?type=pdf`, team(0).key);
      expect(response).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'type' } });
      expect(response.body.message).toMatch(/one of: json, csv/);
    });
  });

  it('never shows a team another team’s scans or findings, on any read', async () => {
    for (const [i, reader] of teams.entries()) {
      const listed = await api.get('/v1/scans/results?limit=1000', reader.key);
      const own = new Set(reader.findings.map((f) => f.id));
      const ids: string[] = listed.body.data.map((item: { vuln_id: string }) => item.vuln_id);
      expect(new Set(ids)).toEqual(own);
      for (const [j, owner] of teams.entries()) {
        if (i === j) continue;
        for (const scanId of owner.scans) {
          for (const path of [
            `/v1/scans/${scanId}`,
            `/v1/scans/result/${scanId}`,
            `/v1/scans/${scanId}/export`,
          ]) {
            const response = await api.get(path, reader.key);
            expect(response.status, path).toBe(404);
            expect(JSON.stringify(response.body)).not.toContain(owner.id);
          }
        }
        for (const finding of owner.findings.slice(0, 3)) {
          expect((await api.get(`/v1/scans/vuln/${finding.id}`, reader.key)).status).toBe(404);
        }
      }
    }
  });

  it.each([
    '/v1/scans/results',
    `/v1/scans/result/dddddddddddddddddddd`,
    '/v1/scans/vuln/dddddddddddddddddddd',
    '/v1/scans/dddddddddddddddddddd',
    '/v1/scans/dddddddddddddddddddd/export',
  ])('answers 401 without a key on %s', async (path) => {
    expect((await api.get(path)).status).toBe(401);
  });

  it('logs the values of its own parameters and hides any other, and never a key', async () => {
    let logs = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += chunk.toString();
        done();
      },
    });
    const logged = await serveApi(store, { logger: pino({ level: 'info' }, sink) });
    const { key, scans } = team(0);
    try {
      await logged.get('/v1/scans/results?severity=high&vuln_status=open&time=last_week&search=app', key);
      await logged.get(`/v1/scans/${scans[0]}/export?type=csv`, key);
      await logged.get(`/v1/user?utm_source=nuclei&api_key=${key}`, key);
    } finally {
      await logged.close();
    }
    expect(logs).toContain('/v1/scans/results?severity=high&vuln_status=open&time=last_week&search=app');
    expect(logs).toContain('export?type=csv');
    expect(logs).toContain('/v1/user?[REDACTED]&[REDACTED]');
    expect(logs).not.toContain(key.slice(3));
  });

  it('describes every read in /openapi.json', async () => {
    const spec = (await api.get('/openapi.json')).body;
    for (const path of [
      '/v1/scans/{scan_id}',
      '/v1/scans/results',
      '/v1/scans/result/{scan_id}',
      '/v1/scans/vuln/{vuln_id}',
      '/v1/scans/{scan_id}/export',
    ]) {
      expect(spec.paths[path]?.get?.responses?.['200'], path).toBeDefined();
    }
  });
});
