import { isSeverity, type ResultEvent } from '../event/index.js';
import { quote } from '../source/index.js';

export type Decoded =
  | { readonly ok: true; readonly event: ResultEvent }
  | { readonly ok: false; readonly error: string };

type Json = Record<string, unknown>;

/**
 * Checks one parsed JSONL value against nuclei's result-event shape (docs/cli.md#jsonl-events) and
 * returns it as a {@link ResultEvent}, or says which field is wrong and how. Keys nuclei added over
 * time (`template`, `port`, `meta`, `req_url_pattern`, …) are kept as they are; `null` lists
 * (nuclei's serialisation of absent ones) are accepted; `info.severity` is matched
 * case-insensitively.
 */
export function decodeEvent(value: unknown): Decoded {
  if (!isObject(value)) return fail('', `expected a JSON object (a nuclei result event), got ${kind(value)}`);
  const checks: (string | undefined)[] = [
    requiredString(value, 'template-id', true),
    requiredString(value, 'type', false),
    optionalStrings(value, [
      'template-path',
      'template-url',
      'matcher-name',
      'extractor-name',
      'host',
      'port',
      'scheme',
      'url',
      'path',
      'matched-at',
      'request',
      'response',
      'ip',
      'curl-command',
      'template-encoded',
    ]),
    optionalList(value, 'extracted-results', 'string'),
    optionalList(value, 'matched-line', 'integer'),
    optionalType(value, 'matcher-status', 'boolean'),
    optionalType(value, 'meta', 'object'),
    timestamp(value),
  ];
  const first = checks.find((c) => c !== undefined);
  if (first !== undefined) return { ok: false, error: first };
  const info = decodeInfo(value.info);
  if (typeof info === 'string') return { ok: false, error: info };
  const event = { ...value, info } as unknown as ResultEvent;
  if (value['matcher-status'] === undefined) event['matcher-status'] = true;
  return { ok: true, event };
}

function decodeInfo(value: unknown): Json | string {
  if (!isObject(value))
    return `info: expected an object with the template's name and severity, got ${kind(value)}`;
  const problem =
    optionalStrings(value, ['name', 'description', 'impact', 'remediation'], 'info.') ??
    optionalList(value, 'author', 'string', 'info.') ??
    optionalList(value, 'tags', 'string', 'info.') ??
    optionalList(value, 'reference', 'string', 'info.') ??
    optionalType(value, 'metadata', 'object', 'info.') ??
    decodeClassification(value.classification);
  if (problem !== undefined) return problem;
  const severity = value.severity ?? '';
  if (typeof severity !== 'string') return `info.severity: expected a string, got ${kind(severity)}`;
  const lower = severity.trim().toLowerCase();
  if (lower !== '' && !isSeverity(lower)) {
    return `info.severity: expected one of critical, high, medium, low, info, unknown; got ${quote(severity)}`;
  }
  return { ...value, severity: lower };
}

function decodeClassification(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return `info.classification: expected an object, got ${kind(value)}`;
  const at = 'info.classification.';
  return (
    optionalList(value, 'cve-id', 'string', at) ??
    optionalList(value, 'cwe-id', 'string', at) ??
    optionalStrings(value, ['cvss-metrics', 'cpe'], at) ??
    optionalType(value, 'cvss-score', 'number', at) ??
    optionalType(value, 'epss-score', 'number', at) ??
    optionalType(value, 'epss-percentile', 'number', at)
  );
}

function timestamp(value: Json): string | undefined {
  const text = value.timestamp;
  if (text === undefined) return undefined;
  if (typeof text !== 'string') return `timestamp: expected an RFC 3339 string, got ${kind(text)}`;
  if (Number.isNaN(parseTimestamp(text))) {
    return `timestamp: ${quote(text)} is not an RFC 3339 time (like 2024-03-14T10:21:33.482190774-04:00)`;
  }
  return undefined;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch ms of an RFC 3339 time with any number of fraction digits (nuclei writes nanoseconds). */
export function parseTimestamp(text: string): number {
  const match = RFC3339.exec(text);
  if (match === null) return Number.NaN;
  const fraction = match[2] ?? '';
  const millis = fraction.slice(0, 3).padEnd(3, '0');
  const normalised = text.replace(/\.\d+/, fraction === '' ? '' : `.${millis}`).replace(' ', 'T');
  return Date.parse(normalised);
}

function requiredString(value: Json, key: string, nonEmpty: boolean): string | undefined {
  const field = value[key];
  if (typeof field !== 'string') return `${key}: required string, got ${kind(field)}`;
  if (nonEmpty && field.trim() === '') return `${key}: must not be empty`;
  return undefined;
}

function optionalStrings(value: Json, keys: readonly string[], at = ''): string | undefined {
  for (const key of keys) {
    const field = value[key];
    if (field !== undefined && field !== null && typeof field !== 'string') {
      return `${at}${key}: expected a string, got ${kind(field)}`;
    }
  }
  return undefined;
}

function optionalType(
  value: Json,
  key: string,
  type: 'boolean' | 'number' | 'object',
  at = '',
): string | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  const ok =
    type === 'object'
      ? isObject(field)
      : typeof field === type && (type !== 'number' || Number.isFinite(field));
  return ok
    ? undefined
    : `${at}${key}: expected ${type === 'object' ? 'an object' : `a ${type}`}, got ${kind(field)}`;
}

function optionalList(value: Json, key: string, item: 'string' | 'integer', at = ''): string | undefined {
  const field = value[key];
  if (field === undefined || field === null) return undefined;
  if (!Array.isArray(field)) return `${at}${key}: expected a list of ${item}s, got ${kind(field)}`;
  const bad = field.findIndex((x) => (item === 'string' ? typeof x !== 'string' : !Number.isInteger(x)));
  return bad < 0 ? undefined : `${at}${key}[${bad}]: expected a ${item}, got ${kind(field[bad])}`;
}

function fail(path: string, message: string): Decoded {
  return { ok: false, error: path === '' ? message : `${path}: ${message}` };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string')
    return `the string ${quote(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
