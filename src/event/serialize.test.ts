import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResultEvent } from './event.js';
import { serializeEvent } from './serialize.js';

const EVENT_ORDER = ['template-id', 'info', 'type', 'host', 'matched-at', 'extracted-results', 'timestamp'];

describe('serializeEvent', () => {
  it("writes nuclei's fields in nuclei's order, nested info and classification too, unknown keys last", () => {
    const event = {
      timestamp: '2026-11-21T13:00:00Z',
      'x-extra': 1,
      host: 'a.test',
      info: {
        severity: 'high',
        classification: { 'cwe-id': ['cwe-200'], 'cve-id': null },
        name: 'n',
        custom: true,
      },
      'template-id': 't',
      type: 'http',
      'matched-at': 'https://a.test/x',
      'extracted-results': ['1'],
      skipped: undefined,
    } as unknown as ResultEvent;
    const line = serializeEvent(event);
    expect(Object.keys(JSON.parse(line))).toEqual([...EVENT_ORDER, 'x-extra']);
    expect(Object.keys(JSON.parse(line).info)).toEqual(['name', 'severity', 'classification', 'custom']);
    expect(Object.keys(JSON.parse(line).info.classification)).toEqual(['cve-id', 'cwe-id']);
  });

  it('writes the same JSON value as JSON.stringify of the event, whatever it holds', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()));
    const record = fc.dictionary(fc.string({ maxLength: 12 }), fc.option(value, { nil: undefined }));
    const event = fc.record({
      'template-id': fc.string(),
      host: fc.string(),
      info: fc.record({ name: fc.string(), severity: fc.string(), classification: record, metadata: record }),
      meta: record,
      extra: record,
    });
    fc.assert(
      fc.property(event, (generated) => {
        const line = serializeEvent(generated as unknown as ResultEvent);
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(generated)));
      }),
      { numRuns: 300 },
    );
  });

  it("writes any subset of nuclei's fields in nuclei's order, whether or not the event has them in order", () => {
    const known = [
      'template-id',
      'info',
      'type',
      'host',
      'port',
      'matched-at',
      'request',
      'timestamp',
      'error',
    ];
    const subset = fc
      .shuffledSubarray(known)
      .chain((keys) => fc.shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length }));
    fc.assert(
      fc.property(subset, fc.boolean(), (keys, sorted) => {
        const order = sorted ? known.filter((key) => keys.includes(key)) : keys;
        const event = Object.fromEntries(order.map((key) => [key, key === 'info' ? { name: 'n' } : key]));
        const line = serializeEvent(event as unknown as ResultEvent);
        expect(Object.keys(JSON.parse(line))).toEqual(known.filter((key) => keys.includes(key)));
        expect(JSON.parse(line)).toEqual(event);
      }),
      { numRuns: 200 },
    );
  });
});
