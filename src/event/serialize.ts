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
  'response-truncated',
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
 * their place after the known ones. An event whose keys are in that order already (the engine
 * builds them so) is `JSON.stringify`'s; any other is written key by key rather than through a
 * reordered copy.
 */
export function serializeEvent(event: ResultEvent): string {
  // Events are built in nuclei's order: JSON.stringify then writes them as nuclei would, faster.
  if (inNucleiOrder(event as unknown as Record<string, unknown>)) return JSON.stringify(event);
  return ordered(event as unknown as Record<string, unknown>, EVENT_ORDER, (key, value) =>
    key === 'info' && isRecord(value) ? ordered(value, INFO_ORDER, infoValue) : JSON.stringify(value),
  );
}

interface KeyOrder {
  readonly keys: readonly string[];
  /** Each key's place in `keys`, and its `"key":` as JSON. */
  readonly known: ReadonlyMap<string, { readonly rank: number; readonly json: string }>;
}

const keyOrder = (keys: readonly string[]): KeyOrder => ({
  keys,
  known: new Map(keys.map((key, rank) => [key, { rank, json: `${JSON.stringify(key)}:` }])),
});
const EVENT_ORDER = keyOrder(EVENT_KEYS);
const INFO_ORDER = keyOrder(INFO_KEYS);
const CLASSIFICATION_ORDER = keyOrder(CLASSIFICATION_KEYS);

function infoValue(key: string, value: unknown): string | undefined {
  return key === 'classification' && isRecord(value)
    ? ordered(value, CLASSIFICATION_ORDER, (_key, inner) => JSON.stringify(inner))
    : JSON.stringify(value);
}

/** `record` as a JSON object, its keys in `order` first; a value that JSON leaves out is left out. */
function ordered(
  record: Record<string, unknown>,
  order: KeyOrder,
  text: (key: string, value: unknown) => string | undefined,
): string {
  const keys = Object.keys(record);
  let out = '{';
  const add = (key: string, name: string): void => {
    const value = record[key];
    if (value === undefined) return;
    const json = text(key, value);
    if (json === undefined) return;
    out += out.length === 1 ? `${name}${json}` : `,${name}${json}`;
  };
  if (inOrder(keys, order)) {
    // Events are built in nuclei's order: their own keys are then written as they come.
    for (const key of keys) add(key, (order.known.get(key) as { json: string }).json);
    return `${out}}`;
  }
  for (const key of order.keys) add(key, (order.known.get(key) as { json: string }).json);
  for (const key of keys) if (!order.known.has(key)) add(key, `${JSON.stringify(key)}:`);
  return `${out}}`;
}

/** True when the event, its `info` and their `classification` have only known keys, in order. */
function inNucleiOrder(event: Record<string, unknown>): boolean {
  if (!inOrder(Object.keys(event), EVENT_ORDER)) return false;
  const { info } = event;
  if (!isRecord(info)) return true;
  if (!inOrder(Object.keys(info), INFO_ORDER)) return false;
  const { classification } = info;
  return !isRecord(classification) || inOrder(Object.keys(classification), CLASSIFICATION_ORDER);
}

/** True when every key is a known one and they come in the known order. */
function inOrder(keys: readonly string[], order: KeyOrder): boolean {
  let last = -1;
  for (const key of keys) {
    const rank = order.known.get(key)?.rank;
    if (rank === undefined || rank < last) return false;
    last = rank;
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
