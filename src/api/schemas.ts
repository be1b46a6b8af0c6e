/**
 * Every request and response shape of the `/v1` API, declared once: Fastify validates requests
 * and serialises responses with these, and `/openapi.json` is generated from them.
 */
import { type Static, Type } from '@sinclair/typebox';
import { SCAN_SORT_FIELDS, SCAN_STATUSES } from '../store/index.js';

export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 100;
export const MAX_SEARCH = 256;
/**
 * The largest offset: the largest integer a JSON number holds exactly. Larger ones would reach
 * the database rounded, or past its 64-bit integers.
 */
export const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

const offset = (required: boolean) => {
  const schema = Type.Integer({
    minimum: 0,
    maximum: MAX_OFFSET,
    ...(required ? {} : { default: 0 }),
    description: `Number of results to skip (an integer from 0 to ${MAX_OFFSET}).`,
  });
  return required ? schema : Type.Optional(schema);
};
const limit = (required: boolean) => {
  const schema = Type.Integer({
    minimum: 1,
    maximum: MAX_LIMIT,
    ...(required ? {} : { default: DEFAULT_LIMIT }),
    description: `Number of results to return (an integer from 1 to ${MAX_LIMIT}).`,
  });
  return required ? schema : Type.Optional(schema);
};
const search = Type.Optional(
  Type.String({
    maxLength: MAX_SEARCH,
    description: `Case-insensitive substring of the name; every character, \`%\` and \`_\` included, is matched literally (at most ${MAX_SEARCH} characters, no NUL).`,
  }),
);

/** A comma-separated list of words from `allowed`, as a regular expression. */
export function commaListPattern(allowed: readonly string[]): string {
  const one = `(${allowed.join('|')})`;
  return `^${one}(,${one})*$`;
}

const sortFields = Object.keys(SCAN_SORT_FIELDS);
const sort = (direction: string) =>
  Type.Optional(
    Type.String({
      pattern: commaListPattern(sortFields),
      description: `Comma-separated fields to sort by, ${direction}, before the default newest-first order: ${sortFields.join(', ')}.`,
    }),
  );

export const ScansQuery = Type.Object(
  {
    offset: offset(false),
    limit: limit(false),
    search,
    status: Type.Optional(
      Type.String({
        pattern: commaListPattern(SCAN_STATUSES),
        description: `One status or a comma-separated list: ${SCAN_STATUSES.join(', ')}.`,
      }),
    ),
    sort_asc: sort('ascending'),
    sort_desc: sort('descending'),
  },
  { additionalProperties: false },
);
export type ScansQuery = Static<typeof ScansQuery>;

export const AssetsQuery = Type.Object(
  { offset: offset(false), limit: limit(false), search },
  { additionalProperties: false },
);
export type AssetsQuery = Static<typeof AssetsQuery>;

export const RetestQuery = Type.Object(
  { offset: offset(true), limit: limit(true) },
  { additionalProperties: false },
);
export type RetestQuery = Static<typeof RetestQuery>;

const Timestamp = Type.String({
  description: 'RFC 3339 UTC with milliseconds (2024-03-14T14:21:33.482Z); "" when not set.',
});
const Strings = Type.Array(Type.String());

export const SeverityCounts = Type.Object(
  {
    critical: Type.Integer(),
    high: Type.Integer(),
    medium: Type.Integer(),
    low: Type.Integer(),
    info: Type.Integer(),
    unknown: Type.Integer(),
  },
  { description: 'Number of findings of each severity.' },
);

export const ScanItem = Type.Object({
  scan_id: Type.String(),
  status: Type.String({ description: `One of ${SCAN_STATUSES.join(', ')}.` }),
  scan_time_elapsed: Type.String({ description: 'Go-style duration: 1h2m3s, 45s, 350ms, 0s.' }),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  failure_reason: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  total_target: Type.Integer(),
  completed_at: Timestamp,
  total_scan: Type.Integer({ description: 'Template × target executions.' }),
  total_template: Type.Integer(),
  name: Type.String(),
  severity: SeverityCounts,
  is_oss: Type.Boolean({ description: 'Run by the CLI or imported.' }),
  is_cloud: Type.Boolean({ description: 'Run by a worker.' }),
  scan_frequency: Type.String({ description: '"once" (keyhole does not schedule scans).' }),
  schedule_last_run: Timestamp,
  asset_ids: Strings,
  is_rescan: Type.Boolean(),
  public_templates: Strings,
  report_config_ids: Strings,
  rescan_count: Type.Integer(),
  scan_config_ids: Strings,
  template_ids: Strings,
  template_urls: Strings,
});
export type ScanItem = Static<typeof ScanItem>;

export const AssetItem = Type.Object({
  asset_count: Type.Integer(),
  asset_id: Type.String(),
  uploaded_at: Timestamp,
  name: Type.String(),
});
export type AssetItem = Static<typeof AssetItem>;

export const Classification = Type.Object({
  cpe: Type.String(),
  'cve-id': Strings,
  'cvss-metrics': Type.String(),
  'cvss-score': Type.Number(),
  'cwe-id': Strings,
  'epss-percentile': Type.Number(),
  'epss-score': Type.Number(),
});

export const EventInfo = Type.Object({
  classification: Classification,
  metadata: Type.Object({}, { additionalProperties: true }),
  author: Strings,
  description: Type.String(),
  impact: Type.String(),
  name: Type.String(),
  tags: Strings,
  reference: Strings,
  remediation: Type.String(),
  severity: Type.String({ description: 'critical, high, medium, low, info or unknown.' }),
});

/** nuclei's `interaction`: the out-of-band callback that confirmed the finding. */
export const EventInteraction = Type.Object(
  {
    protocol: Type.String({ description: 'http, dns, smtp, …' }),
    'unique-id': Type.String(),
    'full-id': Type.String(),
    'q-type': Type.Optional(Type.String()),
    'raw-request': Type.Optional(Type.String()),
    'raw-response': Type.Optional(Type.String()),
    'smtp-from': Type.Optional(Type.String()),
    'remote-address': Type.String(),
    timestamp: Type.String(),
  },
  { additionalProperties: true },
);

export const EventRecord = Type.Object(
  {
    'curl-command': Type.String(),
    'extracted-results': Strings,
    'extractor-name': Type.String(),
    host: Type.String(),
    info: EventInfo,
    interaction: Type.Optional(EventInteraction),
    ip: Type.String(),
    'matched-at': Type.String(),
    'matched-line': Type.Array(Type.Integer()),
    'matcher-name': Type.String(),
    'matcher-status': Type.Boolean(),
    path: Type.String(),
    request: Type.String(),
    response: Type.String(),
    'template-id': Type.String(),
    'template-path': Type.String(),
    timestamp: Type.String(),
    type: Type.String(),
  },
  {
    additionalProperties: true,
    description:
      "A result event (nuclei's shape); further nuclei keys (template-url, port, scheme, url, meta, …) are kept.",
  },
);
export type EventRecord = Static<typeof EventRecord>;

export const RetestItem = Type.Object({
  matcher_status: Type.Boolean({ description: 'True when the finding reproduced.' }),
  vuln_id: Type.String(),
  target: Type.String(),
  template_url: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  scan_id: Type.String(),
  event: Type.Array(EventRecord),
  template_id: Type.String(),
  template_path: Type.String(),
  template_encoded: Type.String({ description: 'The template as re-run, base64.' }),
  result_type: Type.String({ description: 'matched, not_matched or error.' }),
  vuln_status: Type.String({
    description: 'open, fixed, false_positive, duplicate, fix_in_progress, accepted_risk or triaged.',
  }),
});
export type RetestItem = Static<typeof RetestItem>;

export const ScansResponse = Type.Object({ message: Type.String(), data: Type.Array(ScanItem) });
export const AssetsResponse = Type.Object({ message: Type.String(), data: Type.Array(AssetItem) });
export const RetestResponse = Type.Object({ message: Type.String(), results: Type.Array(RetestItem) });

export const ErrorBody = Type.Object({
  message: Type.String(),
  code: Type.String({
    description:
      'invalid_parameter, unauthorized, not_found, method_not_allowed, rate_limited, internal_error, store_unavailable; on writes: forbidden (a read key, or another team in X-Team-Id), invalid_body, conflict, payload_too_large; for requests that are not HTTP the API reads: bad_request, headers_too_large, payload_too_large, request_timeout, expectation_failed; shutting_down.',
  }),
  param: Type.Optional(Type.String({ description: 'The parameter at fault (400).' })),
  error_id: Type.Optional(
    Type.String({ description: 'Quote it when reporting a 500; the server log has the details.' }),
  ),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const HealthResponse = Type.Object({ status: Type.Literal('ok') });

/** Responses every `/v1` route may give besides 200. */
export const ERROR_RESPONSES = {
  400: ErrorBody,
  401: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
} as const;
