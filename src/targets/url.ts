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

/** `scheme://host[:port]` as written (the host alone for a target without a scheme). */
export function rootUrl(target: TargetUrl): string {
  return target.scheme === '' ? target.host : `${target.scheme}://${target.host}`;
}

/** Path, query and fragment: what goes after the host. */
export function relativePart(target: TargetUrl): string {
  const path = target.path !== '' && !target.path.startsWith('/') ? `/${target.path}` : target.path;
  const query = target.query === undefined || target.query === '' ? '' : `?${target.query}`;
  const fragment = target.fragment === undefined || target.fragment === '' ? '' : `#${target.fragment}`;
  return path + query + fragment;
}

/** Whether a target is written with a scheme (`https://…`); one without is probed before a scan. */
export function hasScheme(target: string): boolean {
  return schemeLength(target) > 0;
}
