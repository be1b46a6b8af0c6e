/**
 * DNS-backed values nuclei gives HTTP operators (`cname`, `cname_all`: `addCNameIfAvailable`),
 * asked of the system's resolver with a short timeout. A name without CNAME, a failed or slow
 * lookup gives none, as in nuclei.
 */
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** A CNAME chain longer than this is a loop. */
const MAX_CHAIN = 8;
const LOOKUP_TIMEOUT_MS = 2000;
/** Answers kept this long, for this many names: every response of a target asks again. */
const CACHE_TTL_MS = 60_000;
const CACHE_SIZE = 1024;

const cache = new Map<string, { readonly at: number; readonly chain: Promise<readonly string[]> }>();

/** The CNAME chain of `hostname`, first the name it points to; empty for an IP address or no CNAME. */
export function cnameChain(hostname: string, now = Date.now()): Promise<readonly string[]> {
  if (hostname === '' || isIP(hostname) !== 0) return Promise.resolve([]);
  const key = hostname.toLowerCase();
  const cached = cache.get(key);
  if (cached !== undefined && now - cached.at < CACHE_TTL_MS) return cached.chain;
  if (cache.size >= CACHE_SIZE) cache.clear();
  const chain = lookUpChain(key);
  cache.set(key, { at: now, chain });
  return chain;
}

function lookUpChain(hostname: string): Promise<readonly string[]> {
  return cnameChainVia(new Resolver({ timeout: LOOKUP_TIMEOUT_MS, tries: 1 }), hostname);
}

/** The CNAME chain of `hostname` as `resolver` answers it. */
export async function cnameChainVia(resolver: Resolver, hostname: string): Promise<readonly string[]> {
  const chain: string[] = [];
  let name = hostname;
  while (chain.length < MAX_CHAIN) {
    const next = await resolver.resolveCname(name).then(
      (names) => names[0],
      () => undefined,
    );
    if (next === undefined || chain.includes(next)) break;
    chain.push(next);
    name = next;
  }
  return chain;
}

/** `cname` (the first of the chain) and `cname_all` (the chain, when longer than one), as nuclei sets them. */
export function cnameValues(chain: readonly string[]): ReadonlyMap<string, string | string[]> {
  const values = new Map<string, string | string[]>();
  if (chain[0] !== undefined) values.set('cname', chain[0]);
  if (chain.length > 1) values.set('cname_all', [...chain]);
  return values;
}
