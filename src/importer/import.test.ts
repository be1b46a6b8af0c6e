import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/index.js';
import { sqliteTestDatabase, type TestDatabase } from '../store/testing/databases.js';
import { decodeEvent, parseTimestamp } from './decode-event.js';
import { IMPORT_BATCH, ImportStoppedError, importJsonl, MAX_LINE_BYTES } from './import.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/nuclei-results.jsonl', import.meta.url));

describe('result event decoding', () => {
  it('accepts every line of real nuclei output as written', async () => {
    const lines = (await readFile(FIXTURE, 'utf8')).trim().split('\n');
    for (const line of lines) expect(decodeEvent(JSON.parse(line))).toMatchObject({ ok: true });
  });

  it('says which field is wrong', () => {
    const cases: [unknown, string][] = [
      [[], 'expected a JSON object'],
      [{ info: { severity: 'info' }, type: 'http' }, 'template-id: required string, got nothing'],
      [{ 'template-id': 'x', type: 'http' }, 'info: expected an object'],
      [{ 'template-id': 'x', type: 'http', info: { severity: 'urgent' } }, 'info.severity: expected one of'],
      [
        { 'template-id': 'x', type: 'http', info: {}, 'extracted-results': [1] },
        'extracted-results[0]: expected a string',
      ],
      [
        { 'template-id': 'x', type: 'http', info: {}, 'matched-line': ['a'] },
        'matched-line[0]: expected a integer',
      ],
      [
        { 'template-id': 'x', type: 'http', info: {}, timestamp: 'yesterday' },
        'timestamp: "yesterday" is not an RFC 3339 time',
      ],
      [
        { 'template-id': 'x', type: 'http', info: { classification: { 'cvss-score': 'high' } } },
        'info.classification.cvss-score: expected a number',
      ],
      [
        { 'template-id': 'x', type: 'http', info: {}, 'matcher-status': 'yes' },
        'matcher-status: expected a boolean',
      ],
    ];
    for (const [value, message] of cases) {
      const decoded = decodeEvent(value);
      expect(decoded.ok).toBe(false);
      if (!decoded.ok) expect(decoded.error).toContain(message);
    }
  });

  it('reads nuclei timestamps with nanoseconds and offsets', () => {
    expect(new Date(parseTimestamp('2024-03-14T10:21:33.482190774-04:00')).toISOString()).toBe(
      '2024-03-14T14:21:33.482Z',
    );
    expect(new Date(parseTimestamp('2026-02-27T02:45:46Z')).toISOString()).toBe('2026-02-27T02:45:46.000Z');
    expect(parseTimestamp('2024-13-99T99:00:00Z')).toBeNaN();
  });

  it('never throws on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const decoded = decodeEvent(value);
        expect(typeof decoded.ok).toBe('boolean');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('streaming import', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await sqliteTestDatabase();
    store = await openStore(database.location);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('imports a stream of many events in batches and counts them all', async () => {
    const team = await store.teams.ensure('default');
    const severities = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];
    // More than two batches, and a multiple of the six severities.
    const total = 6 * Math.ceil((2 * IMPORT_BATCH + 1) / 6);
    async function* lines() {
      for (let i = 0; i < total; i++) {
        yield `${JSON.stringify({
          'template-id': `t${i % 40}`,
          info: { name: 'n', author: ['a'], tags: null, severity: severities[i % 6] },
          type: 'http',
          host: `h${i % 25}.test`,
          'matched-at': `https://h${i % 25}.test/${i}`,
          timestamp: '2024-03-14T10:21:33.482190774-04:00',
          'matcher-status': true,
        })}\n`;
      }
    }
    const batches: number[] = [];
    const report = await importJsonl(store, Readable.from(lines()), { teamId: team.id, name: 'big' }, (r) =>
      batches.push(r.lines),
    );
    expect(report).toMatchObject({ imported: total, duplicates: 0, badLines: 0, lines: total });
    expect(report.scan).toMatchObject({
      totalTemplate: 40,
      totalTarget: 25,
      severity: { critical: total / 6, unknown: total / 6 },
    });
    expect(batches.length).toBeGreaterThanOrEqual(2);
  });

  function event(i: number): string {
    return JSON.stringify({
      'template-id': 'deep-test',
      info: { name: 'n', severity: 'low' },
      type: 'http',
      host: 'h.test',
      'matched-at': `https://h.test/${i}`,
    });
  }

  it('skips a line nested thousands deep with its number and imports every other line', async () => {
    const team = await store.teams.ensure('default');
    const deep = `{"template-id":"d","type":"http","info":{},"meta":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    async function* lines() {
      for (let i = 1; i <= 6010; i++) yield `${i === 5006 ? deep : event(i)}\n`;
    }
    const report = await importJsonl(store, Readable.from(lines()), { teamId: team.id, name: 'deep' });
    expect(report.errors).toEqual([
      { line: 5006, message: 'lists and objects nested more than 100 deep; a result event nests a few' },
    ]);
    expect(report).toMatchObject({ lines: 6010, imported: 6009, badLines: 1, scan: { status: 'uploaded' } });
  });

  it('skips a line longer than the limit, saying its length and the limit, and goes on', async () => {
    const team = await store.teams.ensure('default');
    const megabyte = Buffer.alloc(1 << 20, ' ');
    async function* chunks() {
      yield `${event(1)}\n{"template-id":"`;
      for (let i = 0; i < 40; i++) yield megabyte;
      yield `"}\n${event(3)}\n`;
    }
    const report = await importJsonl(store, Readable.from(chunks()), { teamId: team.id, name: 'long' });
    expect(MAX_LINE_BYTES).toBe(32 << 20);
    expect(report.errors).toEqual([
      { line: 2, message: 'the line is 40 MiB long, over the limit of 32 MiB' },
    ]);
    expect(report).toMatchObject({ lines: 3, imported: 2, badLines: 1, scan: { status: 'uploaded' } });
  });

  it("shows a bad line's control characters as escapes in its message", async () => {
    const team = await store.teams.ensure('default');
    const lines = [
      '\x1b]0;owned\x07 not json',
      '{"template-id":"x","type":"http","info":{"severity":"\\u009b2J\\u202e"}}',
      event(3),
    ];
    const report = await importJsonl(store, Readable.from([lines.join('\n')]), { teamId: team.id });
    expect(report.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('\\x1b]0;owned\\x07 not json'),
      'info.severity: expected one of critical, high, medium, low, info, unknown; got "\\x9b2J\\u202e"',
    ]);
    for (const { message } of report.errors) expect(message).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
  });

  it('marks the scan it created failed, never uploaded, when its input breaks off', async () => {
    const team = await store.teams.ensure('default');
    async function* broken() {
      for (let i = 1; i <= IMPORT_BATCH + 1; i++) yield `${event(i)}\n`;
      throw new Error('the disk went away');
    }
    const stopped = await importJsonl(store, Readable.from(broken()), { teamId: team.id, name: 'cut' }).catch(
      (error: unknown) => error,
    );
    expect(stopped).toBeInstanceOf(ImportStoppedError);
    const { line, reason, scan } = stopped as ImportStoppedError;
    expect({ line, reason, left: scan?.left }).toEqual({
      line: IMPORT_BATCH + 1,
      reason: 'the disk went away',
      left: 'failed',
    });
    expect(await store.scans.require(scan!.id)).toMatchObject({
      status: 'failed',
      failureReason: `the import stopped after line ${IMPORT_BATCH + 1}: the disk went away`,
    });
  });
});
