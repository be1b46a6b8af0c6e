/**
 * The JSONL of `keyhole scan -j` re-parses, and every field of the event record (with its `info`
 * and `classification` objects, docs/store-and-api.md#event-records) carries the type the document
 * gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLASSIFICATION_FIELDS,
  EVENT_FIELDS,
  type FieldType,
  hasType,
  INFO_FIELDS,
} from '../../../api/testing/fields.js';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { Workspace } from '../../../scan/testing/workspace.js';

/** Every field of `object` named in `fields` has its type; returns the names present. */
function walk(object: Record<string, unknown>, fields: Record<string, FieldType>, where: string): string[] {
  const present: string[] = [];
  for (const [name, type] of Object.entries(fields)) {
    if (!(name in object)) continue;
    expect(
      hasType(object[name], type),
      `${where}.${name} is ${JSON.stringify(object[name])}, not ${type}`,
    ).toBe(true);
    present.push(name);
  }
  return present;
}

const INFO = `info:
  name: Full event
  author: alice,bob
  severity: critical
  description: Shows every field of an event
  impact: Everything is exposed
  remediation: Upgrade
  reference: [https://example.com/advisory]
  tags: cve,exposure
  classification:
    cvss-metrics: CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H
    cvss-score: 9.8
    cve-id: CVE-2024-0001
    cwe-id: CWE-200
    epss-score: 0.5
    epss-percentile: 0.9
    cpe: cpe:2.3:a:acme:portal:*:*:*:*:*:*:*:*
  metadata:
    max-request: 1
    vendor: acme`;

let host: TestHost;
let ws: Workspace;

beforeAll(async () => {
  host = await startHost('127.0.0.1', () => ({ body: 'ok portal version=3.1.4' }));
  ws = new Workspace();
  ws.file(
    'matcher.yaml',
    `id: named-matcher
${INFO}
http:
  - method: GET
    path: ["{{BaseURL}}/status"]
    matchers:
      - type: word
        name: portal-word
        words: ["portal"]
`,
  );
  ws.file(
    'extractor.yaml',
    `id: named-extractor
${INFO}
http:
  - method: GET
    path: ["{{BaseURL}}/version"]
    extractors:
      - type: regex
        name: version
        group: 1
        regex: ['version=([0-9.]+)']
`,
  );
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

describe('scan JSONL', () => {
  it('re-parses, and every event record field (docs/store-and-api.md#event-records) has its type', async () => {
    const result = await ws.cli([
      'scan',
      '-u',
      `${host.origin}/portal`,
      '-t',
      'matcher.yaml',
      '-t',
      'extractor.yaml',
      '-j',
      '--no-store',
    ]);
    expect(result.code, result.err).toBe(0);
    const lines = result.out.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    const seen = new Set<string>();
    for (const line of lines) {
      const event = JSON.parse(line) as Record<string, unknown>;
      for (const name of walk(event, EVENT_FIELDS, 'event')) seen.add(name);
      const info = event.info as Record<string, unknown>;
      for (const name of walk(info, INFO_FIELDS, 'info')) seen.add(`info.${name}`);
      const classification = info.classification as Record<string, unknown>;
      for (const name of walk(classification, CLASSIFICATION_FIELDS, 'classification'))
        seen.add(`classification.${name}`);
      expect(new Date(event.timestamp as string).toISOString()).not.toBe('Invalid Date');
      expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    }
    const expected = [
      ...Object.keys(EVENT_FIELDS).filter((name) => name !== 'matched-line'),
      ...Object.keys(INFO_FIELDS).map((name) => `info.${name}`),
      ...Object.keys(CLASSIFICATION_FIELDS).map((name) => `classification.${name}`),
    ];
    // `matched-line` is nuclei's line numbers of file-protocol matches; HTTP events omit it, as nuclei's do.
    expect([...seen].sort()).toEqual(expected.sort());
  });
});
