import { randomBytes } from 'node:crypto';
import { parse as parseDomain } from 'tldts';

/**
 * A scan target split into its parts exactly as written: no WHATWG normalisation, so `..`, `..;`,
 * `%2e` and empty segments stay as they are (templates probe servers with exactly those bytes).
 */
export interface TargetUrl {
  /** Lower-cased; empty when the input has none (`example.com`). */
  readonly scheme: string;
  /** `user:pass` before `@`, if any. */
  readonly userinfo?: string;
  /** Host and port as written (`example.com:8443`, `[::1]:80`). */
  readonly host: string;
  /** Host without port or IPv6 brackets. */
  readonly hostname: string;
  /** The port as written, or `''`. */
  readonly port: string;
  /** The path as written, possibly empty. */
  readonly path: string;
  /** The query without `?`, undefined when there is none. */
  readonly query?: string;
  readonly fragment?: string;
}

export class TargetError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message);
    this.name = 'TargetError';
  }
}

/**
 * Splits a target URL into its parts. A target without a scheme is accepted here (nuclei probes
 * such inputs with https first, then http, before running HTTP templates; that decision belongs to
 * the engine), but a target without a host is not.
 */
export function parseTargetUrl(input: string): TargetUrl | TargetError {
  const text = input.trim();
  if (text === '') return new TargetError(input, 'the target is empty; give a URL like https://app.example');
  const known = lastOrigin;
  if (known !== undefined && text.startsWith(known.prefix) && endsAuthority(text, known.prefix.length)) {
    return withParts(known.parts, text.slice(known.prefix.length));
  }
  const parsed = parseWhole(input, text);
  if (!(parsed instanceof TargetError) && parsed.scheme !== '') {
    const prefix = text.slice(
      0,
      text.indexOf('://') +
        3 +
        parsed.host.length +
        (parsed.userinfo === undefined ? 0 : parsed.userinfo.length + 1),
    );
    const { scheme, host, hostname, port, userinfo } = parsed;
    lastOrigin = {
      prefix,
      parts:
        userinfo === undefined
          ? { scheme, host, hostname, port }
          : { scheme, host, hostname, port, userinfo },
    };
  }
  return parsed;
}

type OriginParts = Pick<TargetUrl, 'scheme' | 'host' | 'hostname' | 'port' | 'userinfo'>;

/**
 * The scheme and authority of the last URL parsed, as written and as parts: a scan parses the URL
 * of every request, and the requests of a run share one origin. Only the rest of such a URL (path,
 * query, fragment) is then split.
 */
let lastOrigin: { readonly prefix: string; readonly parts: OriginParts } | undefined;

/** True when the authority of `text` ends at `at`: the end, or a path, query or fragment starts there. */
function endsAuthority(text: string, at: number): boolean {
  if (at === text.length) return true;
  const code = text.charCodeAt(at);
  return code === 0x2f || code === 0x3f || code === 0x23;
}

/** The parts of a URL of a known origin from the rest after its authority. */
function withParts(origin: OriginParts, after: string): TargetUrl {
  let rest = after;
  const parsed: { -readonly [K in keyof TargetUrl]: TargetUrl[K] } = {
    scheme: origin.scheme,
    host: origin.host,
    hostname: origin.hostname,
    port: origin.port,
    path: '',
  };
  if (origin.userinfo !== undefined) parsed.userinfo = origin.userinfo;
  const hash = rest.indexOf('#');
  let fragment: string | undefined;
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  const question = rest.indexOf('?');
  if (question >= 0) {
    parsed.query = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  parsed.path = rest;
  if (fragment !== undefined) parsed.fragment = fragment;
  return parsed;
}

function parseWhole(input: string, text: string): TargetUrl | TargetError {
  let rest = text;
  let scheme = '';
  const schemeEnd = schemeLength(rest);
  if (schemeEnd > 0) {
    scheme = rest.slice(0, schemeEnd).toLowerCase();
    rest = rest.slice(schemeEnd + 3);
  } else if (rest.startsWith('//')) {
    rest = rest.slice(2);
  }
  let fragment: string | undefined;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query: string | undefined;
  const question = rest.indexOf('?');
  if (question >= 0) {
    query = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  const slash = rest.indexOf('/');
  let authority = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash) : '';
  let userinfo: string | undefined;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    userinfo = authority.slice(0, at);
    authority = authority.slice(at + 1);
  }
  const hostPort = splitHostPort(authority);
  if (hostPort === undefined || hostPort.hostname === '') {
    return new TargetError(input, `"${input}" has no host; give a URL like https://app.example/path`);
  }
  if (hostPort.port !== '' && !/^\d{1,5}$/.test(hostPort.port)) {
    return new TargetError(input, `"${input}" has an invalid port "${hostPort.port}"`);
  }
  // Optional parts set one by one: object spreads here cost more than the parsing (a request's URL
  // is parsed on every request a scan sends).
  const parsed: { -readonly [K in keyof TargetUrl]: TargetUrl[K] } = {
    scheme,
    host: authority,
    hostname: hostPort.hostname,
    port: hostPort.port,
    path,
  };
  if (userinfo !== undefined) parsed.userinfo = userinfo;
  if (query !== undefined) parsed.query = query;
  if (fragment !== undefined) parsed.fragment = fragment;
  return parsed;
}

/**
 * The length of the scheme that `text` starts with (`scheme://`: a letter, then letters, digits,
 * `+`, `-` or `.`), or 0. By hand rather than by a regex: every request's URL is parsed.
 */
function schemeLength(text: string): number {
  const end = text.indexOf('://');
  if (end <= 0 || !isLetter(text.charCodeAt(0))) return 0;
  for (let i = 1; i < end; i++) {
    const code = text.charCodeAt(i);
    const allowed =
      isLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2d || code === 0x2e;
    if (!allowed) return 0;
  }
  return end;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function splitHostPort(authority: string): { hostname: string; port: string } | undefined {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return undefined;
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return undefined;
    return { hostname: authority.slice(1, close), port: after.slice(1) };
  }
  const colon = authority.lastIndexOf(':');
  if (colon < 0) return { hostname: authority, port: '' };
  return { hostname: authority.slice(0, colon), port: authority.slice(colon + 1) };
}

/** The port nuclei uses for a scheme when the URL names none. */
export function effectivePort(target: TargetUrl): string {
  if (target.port !== '') return target.port;
  if (target.scheme === 'https') return '443';
  if (target.scheme === 'http') return '80';
  return '';
}

/** The URL as text again: `scheme://[userinfo@]host` + path + `?query` + `#fragment`. */
export function formatTargetUrl(target: TargetUrl): string {
  const origin = rootUrl(target);
  const user = target.userinfo === undefined ? '' : `${target.userinfo}@`;
  const withUser = target.scheme === '' ? `${user}${origin}` : origin.replace('://', `://${user}`);
  return withUser + relativePart(target);
}

function rootUrl(target: TargetUrl): string {
  return target.scheme === '' ? target.host : `${target.scheme}://${target.host}`;
}

/** Path, query and fragment: what goes after the host. */
export function relativePart(target: TargetUrl): string {
  const path = target.path !== '' && !target.path.startsWith('/') ? `/${target.path}` : target.path;
  const query = target.query === undefined || target.query === '' ? '' : `?${target.query}`;
  const fragment = target.fragment === undefined || target.fragment === '' ? '' : `#${target.fragment}`;
  return path + query + fragment;
}

export interface TargetVariableOptions {
  /**
   * Drop one trailing `/` from the target path before building `BaseURL`, as nuclei does when a
   * method/path request starts with `{{BaseURL}}/` (so that `https://a/blog/` + `{{BaseURL}}/x`
   * gives `https://a/blog/x`, not `https://a/blog//x`). See {@link pathHasTrailingSlash}.
   */
  readonly trimTrailingSlash?: boolean;
}

/**
 * The variables nuclei derives from the target URL (`pkg/protocols/utils/variables.go`):
 * `BaseURL` and `Input` (the URL without its query), `RootURL`, `Hostname` (host[:port] as
 * written), `Host` (no port), `Port` (default from the scheme), `Path` (directory of the path),
 * `File` (last segment), `Query` (see {@link queryVariable}), `Scheme`, and the DNS parts `FQDN`, `RDN` (registrable domain), `DN`, `TLD` (public suffix), `SD`
 * (subdomain). The DNS parts other than `FQDN` are absent for IP addresses and names that are not
 * under a public suffix (`localhost`), as in nuclei; a request that needs them is then skipped as
 * unresolved.
 */
/** Every name `targetVariables` may give (`RDN`, `DN`, `TLD`, `SD` only for a registrable domain). */
export const TARGET_VARIABLE_NAMES: readonly string[] = [
  'BaseURL',
  'RootURL',
  'Hostname',
  'Host',
  'Port',
  'Path',
  'File',
  'Query',
  'Scheme',
  'Input',
  'FQDN',
  'RDN',
  'DN',
  'TLD',
  'SD',
];

export function targetVariables(
  target: TargetUrl,
  options: TargetVariableOptions = {},
): Record<string, string> {
  const path =
    options.trimTrailingSlash === true && target.path.endsWith('/') ? target.path.slice(0, -1) : target.path;
  // Without the query: a request built on BaseURL gets the target's query merged in after its own
  // path (`https://a/p?x=1` + `{{BaseURL}}/y` is `https://a/p/y?x=1`).
  const { query: _, ...withoutQuery } = target;
  const baseUrl = formatTargetUrl({ ...withoutQuery, path });
  const vars: Record<string, string> = {
    BaseURL: baseUrl,
    RootURL: rootUrl(target),
    Hostname: target.host,
    Host: target.hostname,
    Port: effectivePort(target),
    Path: directoryOf(path),
    File: lastSegmentOf(path),
    Query: queryVariable(target.query),
    Scheme: target.scheme,
    Input: baseUrl,
    FQDN: target.hostname,
  };
  const domain = parseDomain(target.hostname, { allowPrivateDomains: true });
  if (!domain.isIp && domain.domain !== null && domain.publicSuffix !== null) {
    vars.RDN = domain.domain;
    vars.DN = domain.domainWithoutSuffix ?? '';
    vars.TLD = domain.publicSuffix;
    vars.SD = domain.subdomain ?? '';
  }
  return vars;
}

/**
 * nuclei's `Query`: `?` and the target's parameters grouped by name, the names in byte order (Go's
 * sorted `url.Values`), each name's values in their written order; `''` without parameters.
 */
function queryVariable(query: string | undefined): string {
  if (query === undefined || query === '') return '';
  const byName = new Map<string, string[]>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const pairs = byName.get(name);
    if (pairs === undefined) byName.set(name, [pair]);
    else pairs.push(pair);
  }
  const names = [...byName.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.length === 0 ? '' : `?${names.flatMap((name) => byName.get(name) ?? []).join('&')}`;
}

/** Go's `path.Dir`, `.` mapped to `''` as nuclei does. */
function directoryOf(path: string): string {
  if (path === '') return '';
  const cut = path.lastIndexOf('/');
  const dir = cleanPath(cut < 0 ? '' : path.slice(0, cut + 1));
  return dir === '.' ? '' : dir;
}

/** Go's `path.Base`, `.` mapped to `''`. */
function lastSegmentOf(path: string): string {
  if (path === '') return '';
  let p = path;
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  if (p === '/') return '/';
  const cut = p.lastIndexOf('/');
  return cut < 0 ? p : p.slice(cut + 1);
}

/** Go's `path.Clean` (lexical: `.`, `..`, repeated slashes). */
function cleanPath(path: string): string {
  if (path === '') return '.';
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else out.push(segment);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/**
 * True when a method/path request starts with a variable followed by `/` (`{{BaseURL}}/x`): then
 * nuclei builds the variables with the target's trailing slash removed.
 */
export function pathHasTrailingSlash(pathTemplate: string): boolean {
  return /^\{\{[a-zA-Z]+\}\}\//.test(pathTemplate);
}

/**
 * `{{BaseURL}}:8080/x` and `{{RootURL}}:8080/x` override the target's port: returns the port and
 * the path with `:8080` removed, as nuclei's `UpdateURLPortFromPayload` does.
 */
export function portOverride(pathTemplate: string): { port: string; path: string } | undefined {
  const match = /^\{\{(BaseURL|RootURL)\}\}:(\d+)/.exec(pathTemplate);
  if (match === null) return undefined;
  const port = match[2] ?? '';
  return { port, path: pathTemplate.replace(`:${port}`, '') };
}

/** The target with another port (`host` rewritten, IPv6 brackets kept). */
export function withPort(target: TargetUrl, port: string): TargetUrl {
  const host = target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname;
  return { ...target, port, host: `${host}:${port}` };
}

/**
 * Joins a request path onto the target path without normalising it, as nuclei's path automerge
 * does (`projectdiscovery/utils` `mergePaths`): `/blog` + `/admin` is `/blog/admin`, a path that
 * already starts with the target path is kept whole, and an empty side yields the other.
 */
export function mergePaths(base: string, next: string): string {
  let second = next;
  if (base.endsWith('/') && second.startsWith('/')) second = second.replace(/^\/+/, '');
  if (base === '') return second;
  if (second === '') return base;
  if (!base.endsWith('/') && !second.startsWith('/')) second = `/${second}`;
  if (base === second) return base;
  if (base.length > second.length && base.endsWith(second)) return base;
  if (base.length < second.length && second.startsWith(base)) return second;
  return base + second;
}

/** Query strings merged target first, as nuclei merges parameters (target values win on order). */
export function mergeQueries(first: string | undefined, second: string | undefined): string | undefined {
  const a = first === undefined || first === '' ? undefined : first;
  const b = second === undefined || second === '' ? undefined : second;
  if (a === undefined) return b;
  if (b === undefined) return a;
  return `${a}&${b}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A fresh value for `{{randstr}}` (and `{{randstr_N}}`): 27 base62 characters like the KSUIDs
 * nuclei uses. One value per name per template run, so that the same marker in a path and in a
 * matcher agree.
 */
export function newRandstr(): string {
  const bytes = randomBytes(27);
  let out = '';
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
}

/** `scheme://host` (or just the host when the target has no scheme): nuclei's `RootURL`. */
export function rootUrlOf(target: TargetUrl): string {
  return rootUrl(target);
}
