import { domainToASCII } from 'node:url';
import { defaultPort, type Scheme } from '../http/index.js';

/**
 * Where a request goes, reduced to what secret matching looks at: the normalised host and the
 * port, and whether that port is the scheme's default.
 */
export interface MatchKey {
  /** Lower case, no trailing dot, IDN as punycode, IPv6 in brackets (`[::1]`). */
  readonly host: string;
  readonly port: number;
  readonly defaultPort: boolean;
  /**
   * What `domains-regex` patterns are matched against: the host, plus `:port` when the port is not
   * the scheme's default (`app.test`, `app.test:8443`, `[::1]:8080`).
   */
  readonly text: string;
}

const PLAIN_HOST = /^[a-z0-9.-]+$/;

/**
 * Normalises a host name as a URL or a request gives it: lower case, one trailing dot removed, IDN
 * as punycode (`node:url` domainToASCII), IPv6 (with or without brackets) in its canonical
 * bracketed form. A name that is not a valid domain (e.g. `*.x` or `a_b`) is kept lower-cased.
 */
export function normaliseHost(hostname: string): string {
  if (PLAIN_HOST.test(hostname) && !hostname.endsWith('.')) return hostname;
  if (hostname.includes(':') || hostname.startsWith('['))
    return canonicalIpv6(hostname) ?? hostname.toLowerCase();
  const lower = hostname.toLowerCase();
  const undotted = lower.endsWith('.') ? lower.slice(0, -1) : lower;
  const ascii = domainToASCII(undotted);
  return ascii === '' ? undotted : ascii;
}

function canonicalIpv6(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  try {
    return new URL(`http://[${bare}]/`).hostname;
  } catch {
    return undefined;
  }
}

export function matchKey(scheme: Scheme, hostname: string, port: number): MatchKey {
  const host = normaliseHost(hostname);
  const isDefault = port === defaultPort(scheme);
  return { host, port, defaultPort: isDefault, text: isDefault ? host : `${host}:${port}` };
}

/** The match key of a URL; undefined when it is not an http(s) URL. */
export function matchKeyOfUrl(url: URL): MatchKey | undefined {
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : undefined;
  if (scheme === undefined) return undefined;
  const port = url.port === '' ? defaultPort(scheme) : Number(url.port);
  return matchKey(scheme, url.hostname, port);
}

/**
 * One item of `domains`: a host, optionally with a port. Without a port it stands for the scheme's
 * default port (`app.test` matches `https://app.test/` and `http://app.test/`, not
 * `https://app.test:8443/`). With a port it stands for that port whatever the scheme, so an explicit
 * default port means what it says: `app.test:443` matches `https://app.test/` and
 * `http://app.test:443/`, and not `http://app.test/` (port 80).
 */
export interface DomainItem {
  readonly host: string;
  readonly port: number | undefined;
}

export type DomainItemResult =
  | { readonly ok: true; readonly item: DomainItem; readonly warning?: string }
  | { readonly ok: false; readonly reason: string };

const REGEX_LOOKING = /[*+?()[\]{}|^$\\]/;

/** Reads a `domains` item, or says why it can never match a request and how to write it. */
export function parseDomainItem(text: string): DomainItemResult {
  if (/\s/.test(text))
    return { ok: false, reason: `${JSON.stringify(text)} contains spaces; write one host per item` };
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text);
  if (scheme !== null) {
    const rest = text.slice(scheme[0].length).split('/')[0] ?? '';
    return {
      ok: false,
      reason: `write the host without a scheme: ${JSON.stringify(rest)} instead of ${JSON.stringify(text)}`,
    };
  }
  if (text.includes('/')) {
    const host = text.split('/')[0] ?? '';
    return {
      ok: false,
      reason: `write the host without a path: ${JSON.stringify(host)} instead of ${JSON.stringify(text)}`,
    };
  }
  const split = splitHostPort(text);
  if (!split.ok) return split;
  const { host, port } = split;
  if (host === '') return { ok: false, reason: `${JSON.stringify(text)} has no host name` };
  const item = { host: normaliseHost(host), port };
  if (REGEX_LOOKING.test(host)) {
    return {
      ok: true,
      item,
      warning: `${JSON.stringify(text)} looks like a regular expression, but domains are compared literally; use domains-regex for patterns`,
    };
  }
  return { ok: true, item };
}

type HostPort = { ok: true; host: string; port: number | undefined } | { ok: false; reason: string };

function splitHostPort(text: string): HostPort {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) return { ok: false, reason: `${JSON.stringify(text)} opens "[" without closing it` };
    const host = text.slice(0, close + 1);
    if (canonicalIpv6(host) === undefined)
      return { ok: false, reason: `${JSON.stringify(host)} is not an IPv6 address` };
    const rest = text.slice(close + 1);
    if (rest === '') return { ok: true, host, port: undefined };
    if (!rest.startsWith(':'))
      return { ok: false, reason: `unexpected ${JSON.stringify(rest)} after ${host}` };
    return withPort(host, rest.slice(1), text);
  }
  const colons = text.split(':').length - 1;
  // Two or more colons without brackets: a bare IPv6 address, which cannot carry a port.
  if (colons >= 2) {
    if (canonicalIpv6(text) === undefined)
      return { ok: false, reason: `${JSON.stringify(text)} is not an IPv6 address` };
    return { ok: true, host: text, port: undefined };
  }
  if (colons === 0) return { ok: true, host: text, port: undefined };
  const colon = text.indexOf(':');
  return withPort(text.slice(0, colon), text.slice(colon + 1), text);
}

function withPort(host: string, portText: string, text: string): HostPort {
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    return { ok: false, reason: `the port in ${JSON.stringify(text)} must be a number from 1 to 65535` };
  }
  return { ok: true, host, port };
}

/** The index keys of a domain item: `host` for the default port, `host:port` otherwise. */
export function domainItemKey(item: DomainItem): string {
  return item.port === undefined ? item.host : `${item.host}:${item.port}`;
}

/** Whether a domain item matches a request's match key (the definition the index implements). */
export function domainItemMatches(item: DomainItem, key: MatchKey): boolean {
  if (item.host !== key.host) return false;
  return item.port === undefined ? key.defaultPort : item.port === key.port;
}
