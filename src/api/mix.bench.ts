/**
 * `npm run bench -- store-mix`: the API under a mix of distinct queries, as dashboards and
 * integrations send them (pages at random offsets, searches, filters, sort orders), with the page
 * cache on and off, at a million findings and a million retest results.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BenchSuite, Report } from '../bench/report.js';
import { openStore, type Store, type StoreLocation } from '../store/index.js';
import {
  SCRATCH_PG_SERVER,
  type ScratchDatabase,
  scratchPostgres,
  scratchSqlite,
} from '../store/testing/scratch.js';
import type { CacheHits } from './bench/protocol.js';
import {
  fillServedFindingFields,
  fillServedFindingHeads,
  fillServedRetestFields,
  type ScanName,
  type SeedSize,
  seed,
} from './bench/seed.js';
import { type Load, load, startServer } from './bench/serve.js';

const SIZE: SeedSize = {
  scans: Number(process.env.KEYHOLE_BENCH_SCANS ?? 100_000),
  findings: Number(process.env.KEYHOLE_BENCH_FINDINGS ?? 1_000_000),
  retests: Number(process.env.KEYHOLE_BENCH_RETESTS ?? 1_000_000),
};
const SECONDS = Number(process.env.KEYHOLE_BENCH_SECONDS ?? 10);
/** Set to keep the seeded databases between runs (and use them again when they are there). */
const KEEP = process.env.KEYHOLE_BENCH_KEEP === '1';
/**
 * With `KEYHOLE_BENCH_KEEP`, a name for the kept databases (`keyhole-bench-mix-NAME`,
 * `keyhole_bench_mix_NAME`): builds whose migrations differ each keep their own copy.
 */
const KEPT_NAME = (process.env.KEYHOLE_BENCH_KEPT_NAME ?? '').replace(/[^a-z0-9]/g, '');
/** Set to measure only the mix without the page cache (with `KEYHOLE_BENCH_CPU_PROF`, to profile it). */
const MIX_ONLY = process.env.KEYHOLE_BENCH_MIX_ONLY === '1';
/** With `KEYHOLE_BENCH_MIX_ONLY`, `KEYHOLE_BENCH_CACHE=on` measures the mix with the page cache instead. */
const CACHES = MIX_ONLY ? [process.env.KEYHOLE_BENCH_CACHE === 'on'] : [true, false];
/** With `KEYHOLE_BENCH_MIX_ONLY`, kinds to measure alone after the mix (`scan pages,retest pages`). */
const ALSO_KINDS = (process.env.KEYHOLE_BENCH_KINDS ?? '')
  .split(',')
  .map((kind) => kind.trim())
  .filter((kind) => kind !== '');
const CONNECTIONS = 10;
/**
 * How long a new API server is loaded with the mix before its measured rows, and reported as a
 * row of its own: until then V8 is still compiling the server's code (the first seconds of a new
 * server cost about half as much CPU again per response as later ones, measured). Its URLs come
 * from another seed than the measured rows', so the rows ask for pages it read only by chance.
 */
/** `KEYHOLE_BENCH_API_PROCESSES=N`: the API's processes sharing its port, as `keyhole serve --processes N` (see bench/worker.ts). */
const API_PROCESSES = Number(process.env.KEYHOLE_BENCH_API_PROCESSES ?? 1);
const WARM_SECONDS = Number(process.env.KEYHOLE_BENCH_WARM_SECONDS ?? 10);
/** The seed of the warm-up's mix (the measured mix's is 17). */
const WARM_SEED = 4_242;
const LIMITS = [10, 20, 50, 100];

const ENVIRONMENTS = ['prod', 'staging', 'dev', 'qa', 'perf'];
const APPS = [
  'billing-api',
  'auth',
  'checkout',
  'search',
  'inventory',
  'catalog',
  'payments',
  'orders',
  'shipping',
  'reviews',
  'wishlist',
  'cart',
  'profile',
  'notifications',
  'reports',
  'admin',
  'gateway',
  'cdn',
  'mail',
  'chat',
  'media',
  'upload',
  'export',
  'import',
  'ledger',
  'audit',
  'crm',
  'erp',
  'hr-portal',
  'wiki',
  'status',
  'docs',
  'Zahlungsdienst-Über',
  'café-portal',
  'promo_100%',
  'legacy\\soap',
  'Ärzte-App',
];
const KINDS = ['nightly', 'weekly', 'ad-hoc', 'release', 'ci', 'compliance', 'pentest'];

/** `prod billing-api nightly scan 4711`: names whose words match 1/5, 1/7, 1/37 of the scans. */
const scanName: ScanName = (i) =>
  `${ENVIRONMENTS[i % 5]} ${APPS[i % APPS.length]} ${KINDS[i % KINDS.length]} scan ${i}`;

/** From every scan (`scan`) to none, through a fifth, a seventh, a 37th, a few and one. */
const SEARCH_TERMS = [
  'scan',
  'prod',
  'nightly',
  'billing',
  'prod billing',
  'scan 1',
  'scan 4242',
  'scan 99999',
  'no such scan',
  'ÜBER',
  'café',
  '100%',
  'promo_',
  'api',
  'release scan 7',
  'qa ',
  'CI',
  'weekly scan 5',
  'legacy\\',
  'zz',
];
const STATUS_FILTERS: [string, number][] = [
  ['finished', 1 / 4],
  ['failed', 1 / 4],
  ['running', 1 / 4],
  ['uploaded', 1 / 4],
  ['finished,failed', 1 / 2],
  ['queued', 0],
];
const SORTS = [
  'sort_desc=severity',
  'sort_asc=name',
  'sort_desc=progress',
  'sort_asc=created_at',
  'sort_desc=updated_at,total_target',
  'sort_asc=status',
];

/** A small deterministic generator, so that every run replays the same requests. */
function random(seedValue: number): () => number {
  let state = seedValue >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind =
  | 'retest pages'
  | 'scan pages'
  | 'scan search'
  | 'scan status'
  | 'scan sort'
  | 'finding pages'
  | 'finding filters'
  | 'scan findings';

const FINDING_FILTERS = [
  'severity=critical',
  'severity=critical,high',
  'vuln_status=open',
  'vuln_status=fixed',
  'severity=medium&vuln_status=open',
  'search=host42.example',
  'search=git-config',
  'time=last_week',
];

const SCAN_FINDING_FILTERS = ['', 'severity=critical,high&', 'vuln_status=open&', 'search=git&'];

/** A request path of one kind: `r` draws, `limit` is the page size, `scanIds` the seeded scans. */
type PathOf = (r: () => number, limit: number, scanIds: readonly string[]) => string;

/** What each kind of request is, and its share of the mix. */
const KINDS_OF_REQUEST: readonly [Kind, number, PathOf][] = [
  ['retest pages', 0.25, (r, limit) => `/v1/retest?offset=${pick(r, SIZE.retests)}&limit=${limit}`],
  ['scan pages', 0.2, (r, limit) => `/v1/scans?offset=${pick(r, SIZE.scans)}&limit=${limit}`],
  [
    'scan search',
    0.15,
    (r, limit) =>
      `/v1/scans?search=${encodeURIComponent(SEARCH_TERMS[pick(r, SEARCH_TERMS.length)]!)}&offset=${pick(r, 5) * limit}&limit=${limit}`,
  ],
  [
    'scan status',
    0.1,
    (r, limit) => {
      const [status, share] = STATUS_FILTERS[pick(r, STATUS_FILTERS.length)]!;
      return `/v1/scans?status=${status}&offset=${pick(r, Math.max(1, SIZE.scans * share))}&limit=${limit}`;
    },
  ],
  [
    'scan sort',
    0.1,
    (r, limit) => `/v1/scans?${SORTS[pick(r, SORTS.length)]}&offset=${pick(r, 10) * limit}&limit=${limit}`,
  ],
  ['finding pages', 0.1, (r, limit) => `/v1/scans/results?offset=${pick(r, SIZE.findings)}&limit=${limit}`],
  [
    'finding filters',
    0.05,
    (r, limit) =>
      `/v1/scans/results?${FINDING_FILTERS[pick(r, FINDING_FILTERS.length)]}&offset=${pick(r, 5) * limit}&limit=${limit}`,
  ],
  [
    'scan findings',
    0.05,
    (r, limit, scanIds) =>
      `/v1/scans/result/${scanIds[pick(r, scanIds.length)]}?${SCAN_FINDING_FILTERS[pick(r, SCAN_FINDING_FILTERS.length)]}limit=${limit}`,
  ],
];

function pick(r: () => number, below: number): number {
  return Math.floor(r() * below);
}

/** An endless sequence of request paths: of one kind, or (without one) the weighted mix. */
function paths(scanIds: readonly string[], kind?: Kind, seed?: number): () => string {
  const r = random(seed ?? (kind === undefined ? 17 : kind.length));
  return () => {
    const limit = LIMITS[pick(r, LIMITS.length)]!;
    if (kind !== undefined) return KINDS_OF_REQUEST.find(([k]) => k === kind)![2](r, limit, scanIds);
    let roll = r();
    for (const [, share, path] of KINDS_OF_REQUEST) {
      roll -= share;
      if (roll < 0) return path(r, limit, scanIds);
    }
    return KINDS_OF_REQUEST[0]![2](r, limit, scanIds);
  };
}

async function keptSqlite(): Promise<ScratchDatabase> {
  const dir = join(tmpdir(), KEPT_NAME === '' ? 'keyhole-bench-mix' : `keyhole-bench-mix-${KEPT_NAME}`);
  await mkdir(dir, { recursive: true });
  return {
    location: { engine: 'sqlite', path: join(dir, 'keyhole.db'), isDefault: false },
    drop: async () => undefined,
  };
}

async function keptPostgres(): Promise<ScratchDatabase> {
  const name = KEPT_NAME === '' ? 'keyhole_bench_mix' : `keyhole_bench_mix_${KEPT_NAME}`;
  const client = new pg.Client({ connectionString: `${SCRATCH_PG_SERVER}/postgres` });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  return {
    location: { engine: 'postgres', url: `${SCRATCH_PG_SERVER}/${name}` },
    drop: async () => undefined,
  };
}

/** Seeds the store unless a kept one already holds the bench team's scans; returns an API key. */
async function prepare(location: StoreLocation): Promise<{ key: string; note: string; scanIds: string[] }> {
  const store = await openStore(location);
  try {
    const team = await store.teams.ensure('bench');
    const key = (await store.keys.create({ teamId: team.id, name: 'bench' })).secret;
    const existing = await store.scans.list(team.id, { offset: 0, limit: 1 });
    if (existing.length > 0) {
      const filled = await fillServedRetestFields(store);
      const findings = await fillServedFindingFields(store);
      const heads = await fillServedFindingHeads(store);
      return {
        key,
        scanIds: await scanIdsOf(store, team.id),
        note: `kept from an earlier run (served fields written for ${filled.toLocaleString('en-US')} retest results and ${findings.toLocaleString('en-US')} findings, served heads for ${heads.toLocaleString('en-US')} findings)`,
      };
    }
    const seeded = await seed(store, team.id, SIZE, scanName);
    return {
      key,
      scanIds: await scanIdsOf(store, team.id),
      note: `seeded ${seeded.rows.toLocaleString('en-US')} rows in ${seeded.seconds.toFixed(1)} s (${Math.round(seeded.rows / seeded.seconds).toLocaleString('en-US')} rows/s)`,
    };
  } finally {
    await store.close();
  }
}

async function scanIdsOf(store: Store, teamId: string): Promise<string[]> {
  const rows = await store.connection.db
    .selectFrom('scan')
    .select('id')
    .where('team_id', '=', teamId)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * CPU time (ms) used so far by each PostgreSQL backend serving `database`, by pid, read from
 * /proc (Linux; empty elsewhere). A request's cost in CPU moves far less with the machine's load
 * than its rate does.
 */
async function postgresCpu(database: string): Promise<Map<number, number>> {
  const used = new Map<number, number>();
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return used;
  }
  for (const pid of pids) {
    try {
      const command = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      if (!command.startsWith('postgres: ') || !command.includes(` ${database} `)) continue;
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
      used.set(Number(pid), ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
    } catch {
      // The process ended meanwhile.
    }
  }
  return used;
}

/**
 * What of PostgreSQL's own settings the rows depend on: its buffer cache against the size of the
 * store. A store larger than `shared_buffers` (128 MB unless set) is read through the operating
 * system's page cache, a copy of each 8 KB page a query touches that the buffer cache does not hold.
 */
async function postgresMemory(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ buffers: string; size: string }>(
      "select current_setting('shared_buffers') as buffers, pg_size_pretty(pg_database_size(current_database())) as size",
    );
    const [memory] = rows;
    return memory === undefined
      ? ''
      : ` PostgreSQL's shared_buffers ${memory.buffers}, the store ${memory.size}.`;
  } finally {
    await client.end();
  }
}

/** Linux's USER_HZ, the unit of /proc's CPU times, on every architecture Node.js runs on. */
const CLOCK_TICKS = 100;

function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, used] of after) ms += used - (before.get(pid) ?? 0);
  return ms;
}

/** The bare route's rate, measured on a server of its own (see `engine`). */
async function loadBare(): Promise<{ load: Load; hits: CacheHits }> {
  const server = await startServer({ kind: 'bare' });
  try {
    await server.hits();
    const measured = await load(`${server.url}/bare`, { connections: CONNECTIONS, seconds: SECONDS });
    return { load: measured, hits: await server.hits() };
  } finally {
    await server.stop();
  }
}

function row(
  label: string,
  cache: boolean,
  result: Load,
  bareRate: number,
  hits: CacheHits,
  postgresMs: number | undefined,
): (string | number)[] {
  const served = Math.max(1, hits.served);
  return [
    label,
    cache ? 'on' : 'off',
    result.rate,
    (result.rate / bareRate).toFixed(3),
    result.p50,
    result.p99,
    cache ? `${((100 * hits.hits) / served).toFixed(1)} %` : '–',
    (hits.cpuMicros / 1000 / served).toFixed(2),
    postgresMs === undefined ? '–' : (postgresMs / served).toFixed(2),
    result.loadCpuMs.toFixed(2),
    result.idleMs.toFixed(2),
    (result.bytes / 1024).toFixed(1),
    result.failures,
  ];
}

async function engine(report: Report, name: string, create: () => Promise<ScratchDatabase>): Promise<void> {
  const database = await create();
  try {
    const { key, note, scanIds } = await prepare(database.location);
    // Measured just before the rows it divides and again just after them, as the machine's
    // speed drifts over minutes: each row is divided by the mean of the two.
    const bareBefore = await loadBare();
    const headers = { 'x-api-key': key };
    const measuredRows: {
      label: string;
      cache: boolean;
      result: Load;
      hits: CacheHits;
      postgresMs: number | undefined;
    }[] = [];
    const { location } = database;
    const postgres = location.engine === 'postgres' ? new URL(location.url).pathname.slice(1) : undefined;
    const memory = location.engine === 'postgres' ? await postgresMemory(location.url) : '';
    for (const cache of CACHES) {
      const server = await startServer({ kind: 'api', location: database.location, cache });
      try {
        const kinds: (Kind | undefined)[] = cache
          ? [undefined]
          : MIX_ONLY
            ? [undefined, ...KINDS_OF_REQUEST.map(([k]) => k).filter((k) => ALSO_KINDS.includes(k))]
            : [undefined, ...KINDS_OF_REQUEST.map(([k]) => k)];
        const measured = kinds.map((kind) => ({
          label: kind ?? 'mix',
          seconds: SECONDS,
          nextPath: paths(scanIds, kind),
        }));
        const warmUp = {
          label: `mix, a new server's first ${WARM_SECONDS + 1} s`,
          seconds: WARM_SECONDS,
          nextPath: paths(scanIds, undefined, WARM_SEED),
        };
        for (const { label, seconds, nextPath } of WARM_SECONDS > 0 ? [warmUp, ...measured] : measured) {
          const postgresBefore = postgres === undefined ? undefined : await postgresCpu(postgres);
          const result = await load(server.url, { connections: CONNECTIONS, seconds, headers, nextPath });
          const hits = await server.hits();
          const postgresMs =
            postgres === undefined || postgresBefore === undefined
              ? undefined
              : cpuSince(postgresBefore, await postgresCpu(postgres));
          measuredRows.push({ label, cache, result, hits, postgresMs });
        }
      } finally {
        await server.stop();
      }
    }
    const bareAfter = await loadBare();
    const bareRate = (bareBefore.load.rate + bareAfter.load.rate) / 2;
    const rows = measuredRows.map((m) => row(m.label, m.cache, m.result, bareRate, m.hits, m.postgresMs));
    const bare = bareBefore.load;
    const bareHits = bareBefore.hits;
    report.note(
      `**${name}**: ${SIZE.scans.toLocaleString('en-US')} scans, ${SIZE.findings.toLocaleString('en-US')} findings, ${SIZE.retests.toLocaleString('en-US')} retest results; ${note}. Bare Fastify route: ${Math.round(bare.rate).toLocaleString('en-US')} requests/s before the rows and ${Math.round(bareAfter.load.rate).toLocaleString('en-US')} after them (each row's ratio is to their mean, ${Math.round(bareRate).toLocaleString('en-US')}); before them p50 ${bare.p50} ms, p99 ${bare.p99} ms, ${(bareHits.cpuMicros / Math.max(1, bareHits.served)).toFixed(1)} µs of its server's CPU and ${(bare.loadCpuMs * 1000).toFixed(1)} µs of the load generator's per response; load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(
          ', ',
        )} after the rows.${memory}${API_PROCESSES > 1 && postgres !== undefined ? ` The API served by ${API_PROCESSES} processes sharing the port (\`KEYHOLE_BENCH_API_PROCESSES\`), its CPU theirs and their parent's; the bare route by one.` : ''}`,
    );
    report.table(
      [
        'requests',
        'page cache',
        'requests/s',
        'ratio to bare',
        'p50 ms',
        'p99 ms',
        'cache hits',
        'server CPU ms per response',
        'PostgreSQL CPU ms per response',
        'load generator CPU ms per response',
        'idle core ms per response',
        'KB per response',
        'errors',
      ],
      rows,
    );
  } finally {
    if (!KEEP) await database.drop();
  }
}

export const suite: BenchSuite = async (report) => {
  report.heading('Store and API: a mix of distinct queries');
  report.note(
    `Each engine is filled, then served by \`keyhole serve\`'s API in a child process and loaded by autocannon with ${CONNECTIONS} connections for ${SECONDS} s per row (after a 1 s warm-up), each request a different URL drawn from the same seeded sequence in every run: 25 % \`/v1/retest\` pages at random offsets over all results, 20 % \`/v1/scans\` pages at random offsets over all scans, 15 % searches (${SEARCH_TERMS.length} terms, from every scan to none) on their first five pages, 10 % status filters at random offsets over what they match, 10 % sort orders on their first ten pages, 10 % team findings pages (\`/v1/scans/results\`) at random offsets over all findings, 5 % their filters (${FINDING_FILTERS.length}: severity, vuln_status, search, time) on their first five pages, 5 % a random scan's findings (\`/v1/scans/result/{scan_id}\`, unfiltered or by severity, status or search); limits 10, 20, 50 or 100. The mix is measured with the page cache on (its hit rate shown) and off, then each kind alone with the cache off. Each server is first loaded for ${WARM_SECONDS + 1} s with the mix drawn from another seed, reported as its own row ("a new server's first seconds", while V8 still compiles the server's code); the rows after it are the server as it runs for days. The ratio divides by the rate of a bare Fastify route returning a constant, measured the same way in the same run just before and just after each engine's rows (each row divided by the mean of the two, as the machine's speed drifts over minutes). CPU per response: the API server process's CPU time (user + system), and on PostgreSQL that of the database's backends (from /proc), over the row and its warm-up, divided by the responses sent: it moves far less with the machine's load than the rate. The load generator's CPU (autocannon, in the bench's own process) and the time the machine's ${cpus().length} cores stood idle, per response, complete the account of the cores' time. Goal: the mix without the cache ≥ 0.03 of the bare rate with p99 < 50 ms.`,
  );
  const only = process.env.KEYHOLE_BENCH_ENGINE;
  if (only !== 'postgres') await engine(report, 'SQLite', KEEP ? keptSqlite : scratchSqlite);
  if (only !== 'sqlite') await engine(report, 'PostgreSQL', KEEP ? keptPostgres : scratchPostgres);
};
