/**
 * `resolve(host, type?)`, nuclei's DNS helper: the first record of a type (`4`/`a` by default,
 * `6`/`aaaa`, `cname`, `ns`, `txt`, `srv`, `ptr`, `mx`, `soa`, `caa`), as text: an address, a name
 * without its final dot, a TXT string, an MX or SRV target, an SOA's primary name server, a CAA value.
 *
 * nuclei asks its own list of public resolvers; keyhole asks the system's: addresses through the
 * system resolver (so the hosts file and local names answer, as they do for the scan's requests),
 * the other types through the name servers of /etc/resolv.conf.
 */
import { argumentError } from '../errors.js';
import { runBlocking } from './blocking.js';
import { type HelperFunction, ranged, textArg } from './helper.js';

const TYPES: Readonly<Record<string, RecordType>> = {
  '4': 'A',
  a: 'A',
  '6': 'AAAA',
  aaaa: 'AAAA',
  cname: 'CNAME',
  ns: 'NS',
  txt: 'TXT',
  srv: 'SRV',
  ptr: 'PTR',
  mx: 'MX',
  soa: 'SOA',
  caa: 'CAA',
};

export type RecordType = 'A' | 'AAAA' | 'CNAME' | 'NS' | 'TXT' | 'SRV' | 'PTR' | 'MX' | 'SOA' | 'CAA';

interface Query {
  readonly host: string;
  readonly type: RecordType;
  /** Name servers (`ip:port`) to ask instead of the system's. */
  readonly servers?: readonly string[];
  readonly timeoutMs: number;
}

/**
 * Runs on the worker thread: the records of the query as text, first one first. Written without
 * references outside itself, since only its text reaches the worker.
 */
async function lookUp(query: Query, require: NodeJS.Require): Promise<string[]> {
  const dns = require('node:dns') as typeof import('node:dns');
  const net = require('node:net') as typeof import('node:net');
  const { host, type, servers } = query;
  if ((type === 'A' || type === 'AAAA') && servers === undefined) {
    const found = await dns.promises.lookup(host, { family: type === 'A' ? 4 : 6, all: true });
    return found.map((entry) => entry.address);
  }
  const resolver = new dns.promises.Resolver({ timeout: query.timeoutMs, tries: 2 });
  if (servers !== undefined) resolver.setServers([...servers]);
  const name = (text: string) => text.replace(/\.$/, '');
  switch (type) {
    case 'A':
      return resolver.resolve4(host);
    case 'AAAA':
      return resolver.resolve6(host);
    case 'CNAME':
      return (await resolver.resolveCname(host)).map(name);
    case 'NS':
      return (await resolver.resolveNs(host)).map(name);
    case 'TXT':
      return (await resolver.resolveTxt(host)).flat();
    case 'SRV':
      return (await resolver.resolveSrv(host)).map((record) => name(record.name));
    case 'PTR':
      // for an address, its reverse name is asked, as nuclei's resolver does
      return (await (net.isIP(host) === 0 ? resolver.resolvePtr(host) : resolver.reverse(host))).map(name);
    case 'MX':
      return (await resolver.resolveMx(host)).map((record) => name(record.exchange));
    case 'SOA': {
      const soa = await resolver.resolveSoa(host);
      return [name(soa.nsname), name(soa.hostmaster)];
    }
    case 'CAA':
      return (await resolver.resolveCaa(host)).map(
        (record) => record.issue ?? record.issuewild ?? record.iodef ?? record.contactemail ?? '',
      );
  }
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ESERVFAIL', 'EREFUSED', 'ENONAME']);

/** The first non-empty record of a type for `host`; a failure is an evaluation error that says why. */
export function resolveRecord(
  host: string,
  type: RecordType,
  servers?: readonly string[],
  timeoutMs = 5_000,
): string {
  const query: Query = servers === undefined ? { host, type, timeoutMs } : { host, type, servers, timeoutMs };
  // the resolver tries twice; leave the worker a moment to start
  const outcome = runBlocking(lookUp, query, timeoutMs * 2 + 2_000);
  if (outcome.kind === 'timed-out') throw argumentError('resolve', 'the DNS query timed out');
  if (outcome.kind === 'failed') {
    throw argumentError(
      'resolve',
      NOT_FOUND.has(outcome.code) ? 'no records found' : `the DNS query failed (${outcome.code})`,
    );
  }
  const first = outcome.value.find((value) => value !== '');
  if (first === undefined) throw argumentError('resolve', 'no records found');
  return first;
}

export const resolveFunctions: readonly HelperFunction[] = [
  ranged('resolve', 1, 2, (args) => {
    const format = args.length > 1 ? textArg(args, 1).toLowerCase() : '4';
    const type = TYPES[format];
    if (type === undefined) {
      throw argumentError(
        'resolve',
        'invalid dns type (one of 4, a, 6, aaaa, cname, ns, txt, srv, ptr, mx, soa, caa)',
      );
    }
    return resolveRecord(textArg(args, 0), type);
  }),
];
