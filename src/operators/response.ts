import { STATUS_CODES } from 'node:http';
import { bytesToText, ScopeView } from '../dsl/index.js';
import { type HeaderList, isHeaderName } from '../http/index.js';
import { rememberBytes } from '../regex/index.js';
import type { Value } from './go-json.js';

/**
 * What matchers and extractors look at: nuclei's variables map (`responseToDSLMap`).
 *
 * Go strings are bytes; here response bytes are held as text with the expression language's
 * mapping (see the dsl's bytes.ts): valid UTF-8 as characters, other bytes as escapes that map back to the
 * exact bytes. So words and regexes with non-ASCII characters match UTF-8 bodies, binary matchers
 * and hex words match the exact bytes, and extracted results are made printable on the way out.
 */
export interface ResponseData {
  readonly variables: ReadonlyMap<string, Value>;
  /** Told of a dsl matcher expression under `or` that failed to evaluate (skipped, as in nuclei). */
  readonly onDslError?: ((message: string) => void) | undefined;
}

export interface ReceivedResponse {
  readonly status: number;
  /** Reason phrase of the status line (`OK`); default: the standard one for the status. */
  readonly statusText?: string;
  /** `1.1` unless given. */
  readonly httpVersion?: string;
  /** Response headers in the order received, with their original casing. */
  readonly headers: HeaderList;
  readonly body: Uint8Array;
  /**
   * The status line and headers exactly as received, ending with the blank line. Default: rebuilt
   * from status, reason and headers.
   */
  readonly head?: Uint8Array;
  /**
   * Overrides the `Content-Length` header as the source of `content_length` (e.g. when the body was
   * decompressed and the header describes the compressed size, nuclei counts the body).
   */
  readonly contentLength?: number;
}

export interface ResponseContext {
  readonly response: ReceivedResponse;
  /** The request as sent, as raw HTTP text (or how to make it, when the text is wanted). */
  readonly request: string | (() => string);
  /** The scan input the template runs against (`host`). */
  readonly host: string;
  /** The URL of the request that produced this response (`matched`, later `matched-at`). */
  readonly matched: string;
  readonly durationMs: number;
  /**
   * Template variables, payload values and other values of the template context. Response values
   * win over them, as in nuclei.
   */
  readonly variables?: Iterable<readonly [string, Value]>;
}

/**
 * Builds the variables map nuclei's `responseToDSLMap` builds for an HTTP response. The map is
 * lazy: a value (the body as text, the header dump, the raw response, the request dump, the headers
 * by name) is computed when first read, so a template pays only for the parts its operators use.
 */
export function responseVariables(context: ResponseContext): ResponseData {
  return { variables: new ResponseVariables(context) };
}

/** The names every response has, in nuclei's order; response values win over template variables. */
const FIXED_NAMES = [
  'host',
  'type',
  'matched',
  'request',
  'response',
  'raw',
  'status_code',
  'body',
  'all_headers',
  'header',
  'all',
  'duration',
  'content_length',
] as const;
type FixedName = (typeof FIXED_NAMES)[number];
const fixedNames: ReadonlySet<string> = new Set(FIXED_NAMES);

class ResponseVariables extends ScopeView {
  private readonly fixed = new Map<FixedName, Value>();
  /** Cookies then headers by name, over the context's variables. */
  private named: Map<string, Value> | undefined;

  constructor(private readonly context: ResponseContext) {
    super();
  }

  get(name: string): Value | undefined {
    if (fixedNames.has(name)) return this.fixedValue(name as FixedName);
    return this.namedValues().get(name);
  }

  has(name: string): boolean {
    return fixedNames.has(name) || this.namedValues().has(name);
  }

  /** Every name in the order nuclei's map is filled. */
  protected merged(): Map<string, Value> {
    const out = new Map(this.namedValues());
    for (const name of FIXED_NAMES) out.set(name, this.fixedValue(name));
    return out;
  }

  private namedValues(): Map<string, Value> {
    if (this.named !== undefined) return this.named;
    const { context } = this;
    const named = new Map<string, Value>(context.variables ?? []);
    for (const [name, value] of responseCookies(context.response.headers))
      named.set(name.toLowerCase(), value);
    for (const [name, value] of joinedHeaders(context.response.headers)) named.set(name, value);
    this.named = named;
    return named;
  }

  private fixedValue(name: FixedName): Value {
    let value = this.fixed.get(name);
    if (value === undefined) {
      value = this.computeFixed(name);
      this.fixed.set(name, value);
    }
    return value;
  }

  private computeFixed(name: FixedName): Value {
    const { context } = this;
    const { response } = context;
    switch (name) {
      case 'host':
        return context.host;
      case 'type':
        return 'http';
      case 'matched':
        return context.matched;
      case 'request':
        return typeof context.request === 'string' ? context.request : context.request();
      case 'raw':
        return this.fixedValue('response');
      case 'response':
        // The head ends with CRLF, so head and body converted apart give the text of the whole.
        return (this.fixedValue('header') as string) + (this.fixedValue('body') as string);
      case 'status_code':
        return response.status;
      case 'body':
        return bodyText(response.body);
      case 'all_headers':
        return this.fixedValue('header');
      case 'header':
        return response.head === undefined ? headText(response) : bytesToText(response.head);
      case 'all':
        return (this.fixedValue('body') as string) + (this.fixedValue('header') as string);
      case 'duration':
        return context.durationMs / 1000;
      case 'content_length':
        return contentLength(response);
    }
  }
}

/**
 * The values of a response under their indexed names (`body_2`, `status_code_2`, …), as nuclei
 * records each request of a template for the requests that follow it. `index` counts from 1.
 */
export function indexedResponseData(data: ResponseData, index: number): ResponseData {
  const suffix = `_${index}`;
  return { variables: new Map([...data.variables].map(([name, value]) => [name + suffix, value])) };
}

/** Layers of variables merged in order: a later layer's value wins over an earlier one's. */
export function mergeResponseData(...layers: readonly ResponseData[]): ResponseData {
  const variables = new Map<string, Value>();
  for (const layer of layers) for (const [name, value] of layer.variables) variables.set(name, value);
  return { variables };
}

/** Plain variables (template variables, dynamic values) as a layer to merge. */
export function variablesOnly(entries: Iterable<readonly [string, Value]>): ResponseData {
  return { variables: new Map(entries) };
}

/** Each header under its name lower-cased with `-` → `_`; repeated headers joined by spaces. */
function joinedHeaders(headers: HeaderList): Map<string, string> {
  const joined = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = name.trim().replaceAll('-', '_').toLowerCase();
    const values = joined.get(key);
    if (values === undefined) joined.set(key, [value]);
    else values.push(value);
  }
  return new Map([...joined].map(([key, values]) => [key, values.join(' ')]));
}

/** The cookies of `Set-Cookie` headers as Go's `Response.Cookies()` reads them (name → value). */
export function responseCookies(headers: HeaderList): [string, string][] {
  const cookies: [string, string][] = [];
  for (const [name, line] of headers) {
    if (!isHeaderName(name, 'set-cookie')) continue;
    const pair = line.split(';', 1)[0]?.trim() ?? '';
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    const cookieName = pair.slice(0, equals).trim();
    const cookieValue = cookieValueOf(pair.slice(equals + 1).trim());
    if (!isToken(cookieName) || cookieValue === undefined) continue;
    cookies.push([cookieName, cookieValue]);
  }
  return cookies;
}

function cookieValueOf(raw: string): string | undefined {
  const value = raw.length > 1 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const valid = code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x3b && code !== 0x5c;
    if (!valid) return undefined;
  }
  return value;
}

function isToken(text: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(text);
}

/** The body as text; its regexes match the received bytes, not a copy encoded from the text. */
function bodyText(body: Uint8Array): string {
  const text = bytesToText(body);
  rememberBytes(text, body);
  return text;
}

function contentLength(response: ReceivedResponse): number {
  if (response.contentLength !== undefined) return response.contentLength;
  const declared = response.headers.find(([name]) => isHeaderName(name, 'content-length'))?.[1].trim();
  if (declared !== undefined && /^\d+$/.test(declared)) return Number(declared);
  return response.body.byteLength;
}

function headText(response: ReceivedResponse): string {
  const version = response.httpVersion ?? '1.1';
  const reason = response.statusText ?? reasonPhrase(response.status);
  const lines = [`HTTP/${version} ${response.status}${reason === '' ? '' : ` ${reason}`}`];
  for (const [name, value] of response.headers) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? '';
}
