import { randomBytes } from 'node:crypto';
import { parse as parseDomain } from 'tldts';
import { effectivePort, formatTargetUrl, rootUrl, type TargetUrl } from '../targets/index.js';

export interface TargetVariableOptions {
  /**
   * Drop one trailing `/` from the target path before building `BaseURL`, as nuclei does when a
   * method/path request starts with `{{BaseURL}}/` (so that `https://a/blog/` + `{{BaseURL}}/x`
   * gives `https://a/blog/x`, not `https://a/blog//x`). See {@link pathHasTrailingSlash}.
   */
  readonly trimTrailingSlash?: boolean;
}

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

/**
 * The variables nuclei derives from the target URL (`pkg/protocols/utils/variables.go`):
 * `BaseURL` and `Input` (the URL without its query), `RootURL`, `Hostname` (host[:port] as
 * written), `Host` (no port), `Port` (default from the scheme), `Path` (directory of the path),
 * `File` (last segment), `Query` (see {@link queryVariable}), `Scheme`, and the DNS parts `FQDN`, `RDN` (registrable domain), `DN`, `TLD` (public suffix), `SD`
 * (subdomain). The DNS parts other than `FQDN` are absent for IP addresses and names that are not
 * under a public suffix (`localhost`), as in nuclei; a request that needs them is then skipped as
 * unresolved.
 */
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
