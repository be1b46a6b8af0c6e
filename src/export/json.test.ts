import { describe, expect, it } from 'vitest';
import { serializeEvent } from '../event/index.js';
import { jsonExport } from './json.js';
import { finding } from './testing/finding.js';

describe('the JSON export', () => {
  it('is one JSON array of the result events, each as its JSONL line', () => {
    const events = [finding(), finding({ 'template-id': 'second' })];
    const text = jsonExport(events);
    expect(JSON.parse(text)).toEqual(events.map((e) => JSON.parse(serializeEvent(e))));
    expect(text).toContain(serializeEvent(events[1]!));
  });

  it('is an empty array when there is no finding', () => {
    expect(JSON.parse(jsonExport([]))).toEqual([]);
  });
});
