/**
 * The fields of the API's responses and their types as docs/store-and-api.md#response-fields lists
 * them, written out independently of the API's schemas so that a test walking real responses
 * catches a schema that drifted from the document.
 */
export type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'object'
  | 'string[]'
  | 'integer[]'
  | 'object[]';

export const SCAN_FIELDS: Record<string, FieldType> = {
  scan_id: 'string',
  status: 'string',
  scan_time_elapsed: 'string',
  progress: 'integer',
  failure_reason: 'string',
  created_at: 'string',
  updated_at: 'string',
  total_target: 'integer',
  completed_at: 'string',
  total_scan: 'integer',
  total_template: 'integer',
  name: 'string',
  severity: 'object',
  is_oss: 'boolean',
  is_cloud: 'boolean',
  scan_frequency: 'string',
  schedule_last_run: 'string',
  asset_ids: 'string[]',
  is_rescan: 'boolean',
  public_templates: 'string[]',
  report_config_ids: 'string[]',
  rescan_count: 'integer',
  scan_config_ids: 'string[]',
  template_ids: 'string[]',
  template_urls: 'string[]',
};

export const ASSET_FIELDS: Record<string, FieldType> = {
  asset_count: 'integer',
  asset_id: 'string',
  uploaded_at: 'string',
  name: 'string',
};

export const RETEST_FIELDS: Record<string, FieldType> = {
  matcher_status: 'boolean',
  vuln_id: 'string',
  target: 'string',
  template_url: 'string',
  created_at: 'string',
  updated_at: 'string',
  scan_id: 'string',
  event: 'object[]',
  template_id: 'string',
  template_path: 'string',
  template_encoded: 'string',
  result_type: 'string',
  vuln_status: 'string',
};

export const EVENT_FIELDS: Record<string, FieldType> = {
  'curl-command': 'string',
  'extracted-results': 'string[]',
  'extractor-name': 'string',
  host: 'string',
  info: 'object',
  ip: 'string',
  'matched-at': 'string',
  'matched-line': 'integer[]',
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

export const INFO_FIELDS: Record<string, FieldType> = {
  classification: 'object',
  metadata: 'object',
  author: 'string[]',
  description: 'string',
  impact: 'string',
  name: 'string',
  tags: 'string[]',
  reference: 'string[]',
  remediation: 'string',
  severity: 'string',
};

export const CLASSIFICATION_FIELDS: Record<string, FieldType> = {
  cpe: 'string',
  'cve-id': 'string[]',
  'cvss-metrics': 'string',
  'cvss-score': 'number',
  'cwe-id': 'string[]',
  'epss-percentile': 'number',
  'epss-score': 'number',
};

export const SEVERITY_FIELDS: Record<string, FieldType> = {
  critical: 'integer',
  high: 'integer',
  medium: 'integer',
  low: 'integer',
  info: 'integer',
  unknown: 'integer',
};

/** Every problem with `value` against `fields`: a missing field, a wrong type, a null list. */
export function fieldProblems(value: unknown, fields: Record<string, FieldType>, at: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: not an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [name, type] of Object.entries(fields)) {
    const field = record[name];
    if (!(name in record)) problems.push(`${at}.${name}: missing`);
    else if (!hasType(field, type))
      problems.push(`${at}.${name}: expected ${type}, got ${JSON.stringify(field)}`);
  }
  return problems;
}

export function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'integer[]':
      return Array.isArray(value) && value.every((v) => Number.isInteger(v));
    case 'object[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null);
  }
}

/** Walks a whole response of each endpoint, nested event records included. */
export function scanProblems(scan: unknown, at: string): string[] {
  return [
    ...fieldProblems(scan, SCAN_FIELDS, at),
    ...fieldProblems((scan as { severity?: unknown }).severity, SEVERITY_FIELDS, `${at}.severity`),
  ];
}

export function retestProblems(result: unknown, at: string): string[] {
  const problems = fieldProblems(result, RETEST_FIELDS, at);
  const events = (result as { event?: unknown }).event;
  if (!Array.isArray(events)) return problems;
  events.forEach((event, i) => {
    const here = `${at}.event[${i}]`;
    problems.push(...fieldProblems(event, EVENT_FIELDS, here));
    const info = (event as { info?: unknown }).info;
    problems.push(...fieldProblems(info, INFO_FIELDS, `${here}.info`));
    const classification = (info as { classification?: unknown } | undefined)?.classification;
    problems.push(...fieldProblems(classification, CLASSIFICATION_FIELDS, `${here}.info.classification`));
  });
  return problems;
}
