/** The shapes of the findings reads: ProjectDiscovery's `VulnerabilityResults` and its envelope. */
import { type Static, Type } from '@sinclair/typebox';
import { SEVERITIES } from '../../event/index.js';
import { VULN_STATUSES } from '../../store/index.js';
import {
  commaListPattern,
  DEFAULT_LIMIT,
  EventRecord,
  MAX_LIMIT,
  MAX_OFFSET,
  MAX_SEARCH,
} from '../schemas.js';

/** `time`: how far back a finding may have been recorded, and that span in milliseconds. */
export const TIME_SPANS = {
  last_day: 86_400_000,
  last_week: 7 * 86_400_000,
  last_month: 30 * 86_400_000,
} as const;
export type TimeSpan = keyof typeof TIME_SPANS;

export const EXPORT_TYPES = ['json', 'csv'] as const;

const enumOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

export const ResultsQuery = Type.Object(
  {
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_OFFSET,
        default: 0,
        description: `Number of findings to skip (an integer from 0 to ${MAX_OFFSET}).`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIMIT,
        default: DEFAULT_LIMIT,
        description: `Number of findings to return (an integer from 1 to ${MAX_LIMIT}).`,
      }),
    ),
    severity: Type.Optional(
      Type.String({
        pattern: commaListPattern(SEVERITIES),
        description: `One severity or a comma-separated list: ${SEVERITIES.join(', ')}.`,
      }),
    ),
    vuln_status: Type.Optional(
      Type.String({
        pattern: commaListPattern(VULN_STATUSES),
        description: `One status or a comma-separated list: ${VULN_STATUSES.join(', ')}.`,
      }),
    ),
    search: Type.Optional(
      Type.String({
        maxLength: MAX_SEARCH,
        description: `Substring of the finding's target or template id, case-insensitive for A–Z, every other character matched literally (at most ${MAX_SEARCH} characters, no NUL).`,
      }),
    ),
    time: Type.Optional(
      enumOf(
        Object.keys(TIME_SPANS) as TimeSpan[],
        'Only findings recorded in the last day (24 h), week (7 days) or month (30 days).',
      ),
    ),
  },
  { additionalProperties: false },
);
export type ResultsQuery = Static<typeof ResultsQuery>;

export const ExportQuery = Type.Object(
  {
    type: Type.Optional(
      enumOf(EXPORT_TYPES, 'json (the default): a JSON array of the result events; csv: a row per finding.'),
    ),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

export const ScanIdParams = Type.Object({ scan_id: Type.String({ description: 'The scan’s id.' }) });
export type ScanIdParams = Static<typeof ScanIdParams>;
export const VulnIdParams = Type.Object({ vuln_id: Type.String({ description: 'The finding’s vuln id.' }) });
export type VulnIdParams = Static<typeof VulnIdParams>;

const Timestamp = Type.String({ description: 'RFC 3339 UTC with milliseconds (2024-03-14T14:21:33.482Z).' });
const Strings = Type.Array(Type.String());

/** What a finding and its single-finding view share. */
const findingFields = {
  matcher_status: Type.Boolean({ description: 'Always true: a finding is a match.' }),
  vuln_id: Type.String(),
  target: Type.String({ description: 'The event’s host without a trailing dot, else where it matched.' }),
  template_url: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  scan_id: Type.String(),
  template_id: Type.String(),
  template_path: Type.String(),
  template_encoded: Type.String({ description: 'The template that found it, base64; "" when not kept.' }),
  vuln_status: Type.String({ description: `One of ${VULN_STATUSES.join(', ')}.` }),
  vuln_hash: Type.String(),
  severity: Type.String({ description: `One of ${SEVERITIES.join(', ')}.` }),
  description: Type.String(),
  impact: Type.String(),
  remediation: Type.String(),
  reference: Strings,
  labels: Type.Array(Type.String(), { description: '[]: keyhole has no labels.' }),
};

export const ResultItem = Type.Object({
  ...findingFields,
  event: Type.Array(EventRecord, { description: 'The finding’s result event, as stored (redacted).' }),
  result_type: Type.String({ description: '"matched".' }),
});
export type ResultItem = Static<typeof ResultItem>;

export const ResultsResponse = Type.Object({
  current_page: Type.Integer({ description: 'floor(offset / limit) + 1.' }),
  result_count: Type.Integer({ description: 'Findings in `data`.' }),
  total_results: Type.Integer({ description: 'Findings the filters match in all.' }),
  total_pages: Type.Integer({ description: 'ceil(total_results / limit).' }),
  message: Type.String(),
  data: Type.Array(ResultItem),
});
export type ResultsResponse = Static<typeof ResultsResponse>;

export const VulnResponse = Type.Object({
  ...findingFields,
  id: Type.String({ description: 'The vuln id again, as ProjectDiscovery’s API gives it.' }),
  event: EventRecord,
});
export type VulnResponse = Static<typeof VulnResponse>;
