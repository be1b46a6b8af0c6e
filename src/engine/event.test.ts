import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { serializeEvent } from '../event/index.js';
import { HttpClient } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { rfc3339 } from './event.js';
import { runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    {
      path: '/app/config.json',
      respond: { headers: { 'Content-Type': 'application/json' }, body: '{"secret":"K-1","version":"2.0"}' },
    },
  ]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

const detailed = template(
  `id: config-exposure
info:
  name: Config exposure
  author: Alice, BOB
  severity: high
  description: Exposed configuration
  impact: Keys leak
  remediation: Remove the file
  reference:
    - https://Example.com/Advisory
  classification:
    cve-id: CVE-2024-0001
    cwe-id: CWE-200
    cvss-metrics: CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N
    cvss-score: 7.5
  metadata:
    max-request: 1
    verified: true
  tags: Config,Exposure
http:
  - method: GET
    path: ["{{BaseURL}}/config.json"]
    payloads:
      marker: ["m1"]
    headers:
      X-Marker: "{{marker}}"
    matchers:
      - type: word
        name: json-config
        words: ['"secret"']
      - type: status
        name: ok
        status: [200]
    extractors:
      - type: json
        name: secret
        json: [".secret"]
`,
  '/templates/config-exposure.yaml',
);

describe('result events', () => {
  it('fill every event record field (docs/store-and-api.md#event-records) with its type, one event per named matcher', async () => {
    const fixed = new Date('2026-01-02T03:04:05.678Z');
    const run = await runTemplate(detailed, `${server.url}/app`, { dispatch, now: () => fixed });
    expect(run.events.map((e) => e['matcher-name'])).toEqual(['json-config', 'ok']);
    const event = run.events[0] as ResultEvent;
    const types: Record<string, string> = {
      'curl-command': 'string',
      'extracted-results': 'array',
      host: 'string',
      info: 'object',
      ip: 'string',
      'matched-at': 'string',
      'matcher-name': 'string',
      'matcher-status': 'boolean',
      path: 'string',
      request: 'string',
      response: 'string',
      'template-id': 'string',
      'template-path': 'string',
      timestamp: 'string',
      type: 'string',
    };
    const record = event as unknown as Record<string, unknown>;
    for (const [field, type] of Object.entries(types)) {
      const value = record[field];
      expect(Array.isArray(value) ? 'array' : typeof value, field).toBe(type);
    }
    expect(event).toMatchObject({
      'template-id': 'config-exposure',
      'template-path': '/templates/config-exposure.yaml',
      type: 'http',
      host: '127.0.0.1',
      port: String(server.port),
      scheme: 'http',
      url: `${server.url}/app`,
      path: '/app',
      'matched-at': `${server.url}/app/config.json`,
      'extracted-results': ['K-1'],
      ip: '127.0.0.1',
      meta: { marker: 'm1' },
      'matcher-status': true,
    });
    expect(event.timestamp).toMatch(/^2026-01-02T\d\d:04:05\.678(Z|[+-]\d\d:\d\d)$/);
    expect(new Date(event.timestamp).getTime()).toBe(fixed.getTime());
    expect(event.request).toMatch(/^GET \/app\/config\.json HTTP\/1\.1\r\n/);
    expect(event.request).toContain('X-Marker: m1');
    expect(event.response).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"secret":"K-1"/);
    expect(event['curl-command']).toBe(
      `curl -X 'GET' -d '' -H 'Accept: */*' -H 'Accept-Language: en' -H 'Host: 127.0.0.1:${server.port}' -H 'User-Agent: ${
        server.requests.at(-1)?.headers['user-agent']
      }' -H 'X-Marker: m1' '${server.url}/app/config.json'`,
    );
    expect(event.info).toEqual({
      name: 'Config exposure',
      author: ['alice', 'bob'],
      tags: ['config', 'exposure'],
      description: 'Exposed configuration',
      impact: 'Keys leak',
      reference: ['https://Example.com/Advisory'],
      severity: 'high',
      metadata: { 'max-request': 1, verified: true },
      classification: {
        'cve-id': ['cve-2024-0001'],
        'cwe-id': ['cwe-200'],
        'cvss-metrics': 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
        'cvss-score': 7.5,
      },
      remediation: 'Remove the file',
    });
  });

  it('serialise with nuclei key order and re-parse to the same event', async () => {
    const run = await runTemplate(detailed, `${server.url}/app`, { dispatch });
    const line = serializeEvent(run.events[0] as ResultEvent);
    expect(JSON.parse(line)).toEqual(run.events[0]);
    expect(Object.keys(JSON.parse(line))).toEqual([
      'template-id',
      'template-path',
      'info',
      'matcher-name',
      'type',
      'host',
      'port',
      'scheme',
      'url',
      'path',
      'matched-at',
      'extracted-results',
      'request',
      'response',
      'meta',
      'ip',
      'timestamp',
      'curl-command',
      'matcher-status',
    ]);
    expect(Object.keys(JSON.parse(line).info)).toEqual([
      'name',
      'author',
      'tags',
      'description',
      'impact',
      'reference',
      'severity',
      'metadata',
      'classification',
      'remediation',
    ]);
    expect(line).not.toContain('\n');
  });

  it('report one event per named extractor when no matcher is named, null author and tags when absent', async () => {
    const t = template(`id: extract-only
info:
  name: e
  author: x
http:
  - method: GET
    path: ["{{BaseURL}}/config.json"]
    extractors:
      - type: json
        name: version
        json: [".version"]
      - type: regex
        name: key
        regex: ["K-[0-9]"]
`);
    const run = await runTemplate(t, `${server.url}/app`, { dispatch });
    expect(run.events.map((e) => [e['extractor-name'], e['extracted-results']])).toEqual([
      ['version', ['2.0']],
      ['key', ['K-1']],
    ]);
    expect(run.events[0]?.info.tags).toBeNull();
    expect(run.events[0]?.info.severity).toBe('');
  });
});

describe('rfc3339', () => {
  const zone = process.env.TZ;
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('writes the local offset of each instant, across a daylight saving change', () => {
    process.env.TZ = 'America/New_York';
    expect(rfc3339(new Date(Date.UTC(2026, 2, 8, 6, 59, 59, 250)))).toBe('2026-03-08T01:59:59.250-05:00');
    expect(rfc3339(new Date(Date.UTC(2026, 2, 8, 7, 0, 0, 0)))).toBe('2026-03-08T03:00:00.000-04:00');
    expect(rfc3339(new Date(Date.UTC(2026, 2, 8, 7, 0, 30, 5)))).toBe('2026-03-08T03:00:30.005-04:00');
    process.env.TZ = 'UTC';
    expect(rfc3339(new Date(Date.UTC(2026, 10, 21, 12, 0, 0, 0)))).toBe('2026-11-21T12:00:00.000Z');
  });

  it('writes what the date and its offset say, for instants in the same second and apart', () => {
    process.env.TZ = 'Asia/Kolkata';
    const reference = (date: Date): string => {
      const offset = -date.getTimezoneOffset();
      const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, -1);
      const abs = Math.abs(offset);
      const hours = String(Math.floor(abs / 60)).padStart(2, '0');
      return `${local}${offset >= 0 ? '+' : '-'}${hours}:${String(abs % 60).padStart(2, '0')}`;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.integer({ min: 0, max: 999 }),
        (at, later) => {
          const first = new Date(at);
          const second = new Date(at - (at % 1000) + later);
          expect(rfc3339(first)).toBe(reference(first));
          expect(rfc3339(second)).toBe(reference(second));
        },
      ),
      { numRuns: 300 },
    );
  });
});
