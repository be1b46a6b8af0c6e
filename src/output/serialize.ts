/**
 * Result events as nuclei writes them to JSONL: keys in the order of nuclei's `ResultEvent` struct
 * (and of its `info` and `classification`), so keyhole's lines read like nuclei's, field for field.
 */
import type { ResultEvent } from './event.js';

const EVENT_KEYS = [
  'template',
  'template-url',
  'template-id',
  'template-path',
  'template-encoded',
  'info',
  'matcher-name',
  'extractor-name',
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
  'interaction',
  'curl-command',
  'matcher-status',
  'matched-line',
  'error',
] as const;

const INFO_KEYS = [
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
] as const;

const CLASSIFICATION_KEYS = [
  'cve-id',
  'cwe-id',
  'cvss-metrics',
  'cvss-score',
  'epss-score',
  'epss-percentile',
  'cpe',
] as const;

/**
 * One JSONL line (without the newline) with keys in nuclei's order; keys nuclei does not know keep
 * their place after the known ones.
 */
export function serializeEvent(event: ResultEvent): string {
  const record = event as unknown as Record<string, unknown>;
  const ordered = orderKeys(record, EVENT_KEYS);
  const info = record.info;
  if (isRecord(info)) {
    const orderedInfo = orderKeys(info, INFO_KEYS);
    if (isRecord(orderedInfo.classification)) {
      orderedInfo.classification = orderKeys(orderedInfo.classification, CLASSIFICATION_KEYS);
    }
    ordered.info = orderedInfo;
  }
  return JSON.stringify(ordered);
}

function orderKeys(record: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of order) if (record[key] !== undefined) out[key] = record[key];
  for (const [key, value] of Object.entries(record))
    if (!(key in out) && value !== undefined) out[key] = value;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
