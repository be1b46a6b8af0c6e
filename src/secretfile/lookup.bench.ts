/**
 * Secret lookups per second for 10, 1,000 and 100,000 entries. A domain lookup must not depend on
 * the number of entries (a Map read); a regex decision is linear in the number of patterns on a
 * host's first sight and memoised after that, so both are reported.
 */
import type { BenchSuite } from '../bench/report.js';
import { rate } from '../bench/report.js';
import type { HttpRequest } from '../http/index.js';
import { GoRegex } from '../regex/index.js';
import type { ScopedSecret, StaticSecret } from './model.js';
import { type Destination, SecretResolver } from './resolver.js';

const SIZES = [10, 1_000, 100_000] as const;
const origin = (index: number) => ({
  file: 'bench.yaml',
  section: 'static' as const,
  index,
  pos: { line: 1, col: 1, offset: 0 },
});
const credential = { type: 'bearertoken' as const, token: 'bench-token' };

function domainEntry(i: number): ScopedSecret {
  return {
    kind: 'static',
    origin: origin(i),
    scope: { kind: 'domains', domains: [{ host: `host${i}.bench.test`, port: undefined }] },
    credential,
  };
}

function regexEntry(i: number): ScopedSecret {
  const pattern = GoRegex.compileWhole(`svc${i}\\.[a-z]+\\.bench\\.test`, { caseInsensitive: true });
  if (!(pattern instanceof GoRegex)) throw new Error(pattern.message);
  return {
    kind: 'static',
    origin: origin(i),
    scope: { kind: 'domains-regex', patterns: [pattern] },
    credential,
  };
}

const at = (hostname: string): Destination => ({ scheme: 'https', hostname, port: 443 });

/** 1,024 destinations spread over the entries, so lookups do not hit one cache line. */
function spread(n: number, host: (i: number) => string): Destination[] {
  return Array.from({ length: 1024 }, (_, k) => at(host(Math.floor((k * 7919) % n))));
}

/**
 * Rates of several setups measured in interleaved rounds (a, b, c, a, b, c, …), keeping each
 * one's best round, so that a change in the load of the shared machine affects all alike.
 */
function interleaved(measures: readonly (() => number)[], rounds = 5): number[] {
  const top = measures.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    measures.forEach((measure, i) => {
      (globalThis as { gc?: () => void }).gc?.();
      top[i] = Math.max(top[i] ?? 0, measure());
    });
  }
  return top;
}

function lookups(resolver: SecretResolver, destinations: readonly Destination[]): () => number {
  let k = 0;
  return () => {
    let found = 0;
    const perSecond = rate(() => {
      if (resolver.choose(destinations[k++ & 1023] as Destination) !== undefined) found++;
    }, 200);
    if (found === 0) throw new Error('the benchmark lookups found nothing');
    return perSecond;
  };
}

interface Case {
  readonly name: string;
  readonly build: (n: number) => { resolver: SecretResolver; hosts: Destination[] };
}

const CASES: readonly Case[] = [
  {
    name: 'domains only',
    build: (n) => ({
      resolver: new SecretResolver({
        entries: Array.from({ length: n }, (_, i) => domainEntry(i)),
        logins: [],
      }),
      hosts: spread(n, (i) => `host${i}.bench.test`),
    }),
  },
  {
    name: 'domains-regex only, host seen before (memo)',
    build: (n) => ({
      resolver: new SecretResolver({
        entries: Array.from({ length: n }, (_, i) => regexEntry(i)),
        logins: [],
      }),
      hosts: spread(n, (i) => `svc${i}.api.bench.test`),
    }),
  },
  {
    name: 'mixed (half each), hosts seen before',
    build: (n) => ({
      resolver: new SecretResolver({
        entries: Array.from({ length: n }, (_, i) => (i % 2 === 0 ? domainEntry(i) : regexEntry(i))),
        logins: [],
      }),
      hosts: spread(n, (i) => (i % 2 === 0 ? `host${i}.bench.test` : `svc${i}.api.bench.test`)),
    }),
  },
];

/**
 * `applyNow` of one static entry, as the scan asks it for every request: without `verify:` (the
 * baseline), and with a `verify:` that passed (a check's result read per request). Both must answer
 * at once, never with a promise.
 */
async function applying(report: Parameters<BenchSuite>[0]): Promise<void> {
  const plain = domainEntry(0) as StaticSecret;
  const checked: StaticSecret = {
    ...plain,
    verify: { url: 'https://host0.bench.test/me', status: [200], regex: undefined, everyMs: undefined },
  };
  const request: HttpRequest = {
    method: 'GET',
    scheme: 'https',
    hostname: 'host0.bench.test',
    port: 443,
    target: '/a?b=1',
    headers: [['User-Agent', 'bench']],
    body: '',
  };
  const resolvers = [plain, checked].map(
    (entry) =>
      new SecretResolver(
        { entries: [entry], logins: [] },
        { runner: { login: async () => ({}), check: async () => ({ status: 200, text: '' }) } },
      ),
  );
  for (const resolver of resolvers) await resolver.apply(request);
  const rates = interleaved(
    resolvers.map(
      (resolver) => () =>
        rate(() => {
          if (resolver.applyNow(request) instanceof Promise)
            throw new Error('a static secret was not applied at once');
        }, 200),
    ),
  );
  report.heading('Applying a static secret');
  report.note(
    'Requests per second of `SecretResolver.applyNow` for one static bearer-token entry (lookup, and a copy of the request with its ' +
      '`Authorization` header), on one core, best of 5 interleaved rounds. Ratio: to the entry without `verify:`, measured in the same run.',
  );
  const base = rates[0] ?? 1;
  report.table(
    ['entry', 'requests/s', 'ratio'],
    [
      ['without verify: (baseline)', rates[0] ?? 0, 1],
      ['with verify:, passed', rates[1] ?? 0, (rates[1] ?? 0) / base],
    ],
  );
}

export const suite: BenchSuite = async (report) => {
  await applying(report);
  report.heading('Secret lookup');
  report.note(
    'Lookups per second of `SecretResolver.choose` (host normalisation included) over N static entries, on one core, ' +
      'best of 5 interleaved rounds. Ratio: the rate at N divided by the rate at 10 entries of the same kind, measured in the same run; ' +
      '1.0 means independent of N.',
  );
  const rows: (string | number)[][] = [];
  let domainWorst = Number.POSITIVE_INFINITY;
  let domainSlowest = Number.POSITIVE_INFINITY;
  for (const c of CASES) {
    const setups = SIZES.map((n) => c.build(n));
    // Warm every memo and code path before measuring.
    for (const { resolver, hosts } of setups) for (const d of hosts) resolver.choose(d);
    const rates = interleaved(setups.map(({ resolver, hosts }) => lookups(resolver, hosts)));
    rates.forEach((r, i) => {
      const ratio = r / (rates[0] ?? r);
      rows.push([c.name, (SIZES[i] ?? 0).toLocaleString('en-US'), r, ratio]);
      if (c.name === 'domains only') {
        domainWorst = Math.min(domainWorst, ratio);
        domainSlowest = Math.min(domainSlowest, r);
      }
    });
  }
  const scans = SIZES.map((n) => {
    const resolver = CASES[1]?.build(n).resolver as SecretResolver;
    let fresh = 0;
    // A host never seen before that matches the last pattern: the full linear scan.
    return () =>
      rate(
        () => void resolver.choose(at(`svc${n - 1}.x${fresh++}.bench.test`)),
        200,
        n >= 100_000 ? 1 : n >= 1_000 ? 10 : 1000,
      );
  });
  const scanRates = interleaved(scans, 3);
  scanRates.forEach((r, i) => {
    rows.push([
      'domains-regex only, host seen first (scan)',
      (SIZES[i] ?? 0).toLocaleString('en-US'),
      r,
      r / (scanRates[0] ?? r),
    ]);
  });
  report.table(['lookup', 'entries', 'lookups/s', 'ratio to 10 entries'], rows);
  const met = domainWorst >= 0.5 && domainSlowest >= 1_000_000;
  report.note(
    `Domain lookups: worst ratio ${domainWorst.toFixed(2)} (required ≥ 0.5), slowest ${Math.round(domainSlowest).toLocaleString('en-US')}/s ` +
      `(required ≥ 1,000,000/s): ${met ? 'met' : 'NOT met'}.`,
  );
};
