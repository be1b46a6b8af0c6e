/**
 * Every key nuclei accepts in the parts of a template keyhole reads, with what keyhole does with it.
 * One table, so that "unknown key", "unsupported feature" and "did you mean" all come from the same
 * place and stay in step with what the parser decodes.
 *
 * - `supported`: decoded into the model and run by the engine.
 * - `ignored`: accepted and has no effect (deprecated in nuclei, its behaviour is now the default).
 * - `unsupported`: nuclei has it, keyhole does not run it yet: the template is skipped, by name.
 */
export type KeyStatus = 'supported' | 'ignored' | 'unsupported';

export interface KeySpec {
  readonly status: KeyStatus;
  /** For unsupported keys: the feature name shown to users (defaults to the key). */
  readonly feature?: string;
}

const supported: KeySpec = { status: 'supported' };
const ignored: KeySpec = { status: 'ignored' };
const unsupported = (feature?: string): KeySpec =>
  feature === undefined ? { status: 'unsupported' } : { status: 'unsupported', feature };

/** Top level of a template (`pkg/templates/templates.go`). */
export const TEMPLATE_KEYS = {
  id: supported,
  info: supported,
  flow: supported,
  http: supported,
  requests: supported,
  variables: supported,
  'self-contained': supported,
  'stop-at-first-match': supported,
  constants: supported,
  signature: unsupported('request signature (signature)'),
  dns: unsupported('dns protocol'),
  file: unsupported('file protocol'),
  network: unsupported('network protocol'),
  tcp: unsupported('tcp protocol'),
  headless: unsupported('headless protocol'),
  ssl: unsupported('ssl protocol'),
  websocket: unsupported('websocket protocol'),
  whois: unsupported('whois protocol'),
  code: unsupported('code protocol'),
  javascript: unsupported('javascript protocol'),
  workflows: unsupported('workflows'),
} as const satisfies Record<string, KeySpec>;

/** `info:` (`pkg/model/model.go`). */
export const INFO_KEYS = {
  name: supported,
  author: supported,
  severity: supported,
  description: supported,
  reference: supported,
  tags: supported,
  classification: supported,
  metadata: supported,
  impact: supported,
  remediation: supported,
} as const satisfies Record<string, KeySpec>;

/** `info.classification:`. */
export const CLASSIFICATION_KEYS = {
  'cve-id': supported,
  'cwe-id': supported,
  'cvss-metrics': supported,
  'cvss-score': supported,
  'epss-score': supported,
  'epss-percentile': supported,
  cpe: supported,
} as const satisfies Record<string, KeySpec>;

/** One item of `http:` / `requests:` (`pkg/protocols/http/http.go`, operators inlined). */
export const HTTP_KEYS = {
  id: supported,
  name: supported,
  raw: supported,
  method: supported,
  path: supported,
  headers: supported,
  body: supported,
  payloads: supported,
  attack: supported,
  threads: supported,
  redirects: supported,
  'host-redirects': supported,
  'max-redirects': supported,
  'stop-at-first-match': supported,
  'cookie-reuse': ignored,
  'disable-cookie': supported,
  unsafe: supported,
  'req-condition': ignored,
  'skip-secret-file': supported,
  'skip-variables-check': supported,
  'disable-path-automerge': supported,
  'self-contained': supported,
  'max-size': supported,
  matchers: supported,
  'matchers-condition': supported,
  extractors: supported,
  'read-all': unsupported('read-all'),
  race: supported,
  race_count: supported,
  pipeline: unsupported('pipeline'),
  'pipeline-concurrent-connections': unsupported('pipeline'),
  'pipeline-requests-per-connection': unsupported('pipeline'),
  fuzzing: unsupported('fuzzing'),
  analyzer: unsupported('analyzer'),
  'pre-condition': unsupported('fuzzing pre-condition'),
  'pre-condition-operator': unsupported('fuzzing pre-condition'),
  signature: unsupported('request signature (signature)'),
  'digest-username': unsupported('digest authentication (digest-username)'),
  'digest-password': unsupported('digest authentication (digest-password)'),
  'iterate-all': unsupported('iterate-all'),
  'global-matchers': unsupported('global-matchers'),
} as const satisfies Record<string, KeySpec>;

/** One item of `matchers:` (`pkg/operators/matchers/matchers.go`). */
export const MATCHER_KEYS = {
  type: supported,
  name: supported,
  part: supported,
  condition: supported,
  negative: supported,
  internal: supported,
  'case-insensitive': supported,
  'match-all': supported,
  words: supported,
  regex: supported,
  status: supported,
  size: supported,
  binary: supported,
  dsl: supported,
  xpath: supported,
  encoding: supported,
} as const satisfies Record<string, KeySpec>;

/** One item of `extractors:` (`pkg/operators/extractors/extractors.go`). */
export const EXTRACTOR_KEYS = {
  type: supported,
  name: supported,
  part: supported,
  internal: supported,
  'case-insensitive': supported,
  regex: supported,
  group: supported,
  kval: supported,
  json: supported,
  xpath: supported,
  attribute: supported,
  dsl: supported,
  'to-unique': unsupported('extractor to-unique'),
} as const satisfies Record<string, KeySpec>;

export type KeyTable = Readonly<Record<string, KeySpec>>;

/** Keys of a table that the parser reads (supported or ignored), for "did you mean". */
export function knownKeys(table: KeyTable): string[] {
  return Object.keys(table);
}
