import type { TemplateString } from '../dsl/index.js';
import type { Classification, Severity } from '../event/index.js';
import type { CompiledOperators } from '../operators/index.js';
import type { Position } from '../source/index.js';

/**
 * A nuclei-format HTTP template as keyhole runs it: every field decoded, defaults applied, every
 * `{{…}}` placeholder and every matcher and extractor compiled, and only states that can run are
 * representable (a template with an unsupported feature or an error never becomes one). The engine
 * renders and evaluates what is here; it never compiles anything again.
 */
export interface Template {
  /** The file it was read from, as given. */
  readonly file: string;
  readonly id: string;
  readonly info: TemplateInfo;
  /** `variables:` in declaration order; values are rendered per request. */
  readonly variables: readonly Variable[];
  /**
   * `constants:` as written (YAML numbers keep their source text): never rendered, and above every
   * other value a request sees, `-var` and payload values included, as nuclei layers them.
   */
  readonly constants: ReadonlyMap<string, string>;
  readonly flow?: Flow;
  readonly selfContained: boolean;
  /** Template-level `stop-at-first-match`. */
  readonly stopAtFirstMatch: boolean;
  /** The `http:` (or legacy `requests:`) blocks, in order. */
  readonly http: readonly HttpBlock[];
  /** How many requests the template makes against one target (for progress). */
  readonly requestCount: number;
}

export interface TemplateInfo {
  readonly name: string;
  /** Lower-cased and trimmed, as nuclei reads them; comma-separated strings are split. */
  readonly authors: readonly string[];
  readonly tags: readonly string[];
  /** Undefined when the template gives none (nuclei emits `""`). */
  readonly severity?: Severity;
  readonly description?: string;
  readonly references: readonly string[];
  readonly classification?: Classification;
  /** Free-form, with YAML types kept (numbers, booleans, nulls, lists, maps). */
  readonly metadata?: Readonly<Record<string, MetadataValue>>;
  readonly impact?: string;
  readonly remediation?: string;
}

export type MetadataValue =
  | string
  | number
  | boolean
  | null
  | readonly MetadataValue[]
  | { readonly [key: string]: MetadataValue };

/**
 * Text of a template with its `{{…}}` placeholders compiled: `template.text` is the text as written,
 * `template.render(scope)` fills the placeholders in. `pos` is where the text starts in the file.
 */
export interface TemplateText {
  readonly template: TemplateString;
  readonly pos: Position;
}

/** A `variables:` entry: its value (`{{rand_base(5)}}`, `admin`, …) is rendered per request. */
export interface Variable extends TemplateText {
  readonly name: string;
  /** The value as written. */
  readonly text?: string;
}

/**
 * `flow:`: nuclei's JavaScript that orders the blocks (`http(N)`, `set`, `iterate`, `template[…]`).
 * It has been checked to compile and to call no protocol but `http`, with literal block references
 * that exist. A flow of `http(N)` calls joined by `&&` / `||` also has its `expression`, which runs
 * without a script engine.
 */
export interface Flow {
  /** The JavaScript as written. */
  readonly source: string;
  readonly expression?: FlowExpression;
}

export type FlowExpression =
  | { readonly kind: 'http' /** 0-based index into `Template.http`. */; readonly block: number }
  | { readonly kind: 'and' | 'or'; readonly left: FlowExpression; readonly right: FlowExpression };

export type AttackType = 'batteringram' | 'pitchfork' | 'clusterbomb';

/** How redirects are followed: nuclei follows none unless asked. */
export type RedirectPolicy =
  | { readonly follow: 'none' }
  | { readonly follow: 'all' | 'same-host'; readonly max: number };

/** nuclei's default for `max-redirects` when redirects are on and no maximum is given. */
export const DEFAULT_MAX_REDIRECTS = 10;

export interface PayloadSet {
  readonly name: string;
  /**
   * Every value, compiled (YAML numbers keep their source text); nuclei renders `{{…}}` placeholders
   * in payload values with the request's variables.
   */
  readonly values: readonly TemplateString[];
  /** Where the values came from: inline in the template, or the payload file resolved on disk. */
  readonly source: { readonly kind: 'inline' } | { readonly kind: 'file'; readonly path: string };
  readonly pos: Position;
}

export interface Payloads {
  readonly attack: AttackType;
  /** In declaration order (nuclei iterates a Go map, so its order is not defined). */
  readonly sets: readonly PayloadSet[];
}

/** One raw request as written, line endings made CRLF as nuclei does before rendering. */
export type RawRequestTemplate = TemplateText;

/** One `path:` entry, such as `{{BaseURL}}/login`. */
export type PathTemplate = TemplateText;

/** A `headers:` entry: the name as written, the value compiled. */
export interface HeaderTemplate extends TemplateText {
  readonly name: string;
}

export type HttpRequests =
  | { readonly kind: 'raw'; readonly raw: readonly RawRequestTemplate[] }
  | { readonly kind: 'path'; readonly method: string; readonly paths: readonly PathTemplate[] };

/**
 * nuclei's race modes. `count` (`race_count`): the block's first request, made `count` times and
 * released at once. `threads` (`race` with `threads:`): every request of the block, released in
 * groups of `threads`.
 */
export type Race = { readonly kind: 'count'; readonly count: number } | { readonly kind: 'threads' };

export interface HttpBlock {
  /** 0-based position in `Template.http`. */
  readonly index: number;
  /** `id:` of the block, used by `flow:` and for values shared between blocks. */
  readonly id?: string;
  readonly pos: Position;
  readonly requests: HttpRequests;
  /** `headers:` in declaration order, names with their casing; merged into raw requests too. */
  readonly headers: readonly HeaderTemplate[];
  /** `body:` of method/path requests; CRLF line endings as nuclei sends them. */
  readonly body?: TemplateText;
  readonly payloads?: Payloads;
  readonly threads?: number;
  /** `race: true`: requests held on their own connections and released together (see {@link Race}). */
  readonly race?: Race;
  readonly redirects: RedirectPolicy;
  readonly stopAtFirstMatch: boolean;
  /** The cookie jar is on unless `disable-cookie: true`. */
  readonly cookieJar: boolean;
  /** `unsafe: true`: raw requests are sent byte for byte over a plain socket. */
  readonly unsafe: boolean;
  readonly skipSecretFile: boolean;
  readonly skipVariablesCheck: boolean;
  readonly disablePathAutomerge: boolean;
  readonly selfContained: boolean;
  /** `max-size`: most bytes of a response body to read. */
  readonly maxSize?: number;
  /** Matchers and extractors, compiled; `operators.model` is what the template declares. */
  readonly operators: CompiledOperators;
  /** Requests this block makes against one target. */
  readonly requestCount: number;
  /** The text of its requests, headers, body and operators: where a payload's name must appear to be used. */
  readonly usageText: string;
}
