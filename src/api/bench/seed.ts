import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import { Xid } from 'xid-ts';
import type { ResultEvent } from '../../event/index.js';
import {
  keepEveryScanLists,
  newId,
  type RetestFieldColumns,
  retestFieldsOf,
  type Store,
  servedEventsJson,
  servedFindingFields,
  servedFindingHead,
  servedRetestFields,
} from '../../store/index.js';

/** How much the benchmark stores: a team's year of scanning. */
export interface SeedSize {
  readonly scans: number;
  readonly findings: number;
  readonly retests: number;
}

/** The name of the scan seeded at position `i`. */
export type ScanName = (i: number) => string;

const nightlyScan: ScanName = (i) => `nightly scan ${i}`;

const TEMPLATES = [
  'git-config',
  'tomcat-detect',
  'CVE-2021-41773',
  'composer-config',
  'http-missing-security-headers',
];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];

function event(i: number, matched: boolean): string {
  return JSON.stringify(eventObject(i, matched));
}

function eventObject(i: number, matched: boolean): ResultEvent {
  const template = TEMPLATES[i % TEMPLATES.length]!;
  const host = `host${i % 5000}.example.test`;
  return {
    'template-id': template,
    'template-path': `/home/runner/nuclei-templates/http/${template}.yaml`,
    info: {
      name: `Finding of ${template}`,
      author: ['pdteam'],
      tags: ['exposure', 'config'],
      severity: SEVERITIES[i % SEVERITIES.length],
      metadata: { 'max-request': 1 },
      classification: { 'cve-id': null, 'cwe-id': ['cwe-200'] },
    },
    type: 'http',
    host,
    port: '443',
    scheme: 'https',
    url: `https://${host}`,
    'matched-at': `https://${host}/${i}/.git/config`,
    request: `GET /${i}/.git/config HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: keyhole\r\n\r\n`,
    response: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n[core]\n\trepositoryformatversion = 0\n',
    ip: '10.20.0.15',
    timestamp: '2024-03-14T10:21:36.884120935-04:00',
    'matcher-status': matched,
  } as ResultEvent;
}

interface Rows {
  readonly table: 'scan' | 'scan_template' | 'template_source' | 'finding' | 'retest';
  readonly columns: readonly string[];
  /** PostgreSQL column types for `json_to_recordset`, in column order. */
  readonly types: readonly string[];
}

const SCAN: Rows = {
  table: 'scan',
  columns: [
    'id',
    'team_id',
    'name',
    'name_folded',
    'status',
    'progress',
    'created_at',
    'updated_at',
    'started_at',
    'completed_at',
    'elapsed_ms',
    'total_target',
    'total_template',
    'total_scan',
    'severity_critical',
    'severity_high',
    'severity_medium',
    'severity_low',
    'severity_info',
    'severity_unknown',
    'is_oss',
  ],
  types: [
    'text',
    'text',
    'text',
    'text',
    'text',
    'int',
    'bigint',
    'bigint',
    'bigint',
    'bigint',
    'bigint',
    'int',
    'int',
    'bigint',
    'int',
    'int',
    'int',
    'int',
    'int',
    'int',
    'int',
  ],
};
const SCAN_TEMPLATE: Rows = {
  table: 'scan_template',
  columns: [
    'scan_id',
    'position',
    'template_id',
    'template_path',
    'template_url',
    'template_hash',
    'is_public',
  ],
  types: ['text', 'int', 'text', 'text', 'text', 'text', 'int'],
};
const FINDING: Rows = {
  table: 'finding',
  columns: [
    'id',
    'team_id',
    'scan_id',
    'vuln_hash',
    'vuln_status',
    'severity',
    'template_id',
    'template_path',
    'template_url',
    'template_hash',
    'target',
    'event',
    'served_fields',
    'served_head',
    'created_at',
    'updated_at',
  ],
  types: [
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'bigint',
    'bigint',
  ],
};
const RETEST: Rows = {
  table: 'retest',
  columns: [
    'id',
    'team_id',
    'finding_id',
    'scan_id',
    'target',
    'template_id',
    'template_path',
    'template_url',
    'template_hash',
    'matcher_status',
    'result_type',
    'vuln_status',
    'events',
    'served_fields',
    'created_at',
    'updated_at',
  ],
  types: [
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'text',
    'int',
    'text',
    'text',
    'text',
    'text',
    'bigint',
    'bigint',
  ],
};

type Value = string | number | null;

/**
 * Fills the store for the benchmark in bulk: prepared statements in large transactions on
 * SQLite, `INSERT … SELECT FROM json_to_recordset` batches on PostgreSQL (COPY-like, one round
 * trip per 5,000 rows). Returns the seeding rate.
 */
export async function seed(
  store: Store,
  teamId: string,
  size: SeedSize,
  scanName: ScanName = nightlyScan,
): Promise<{ rows: number; seconds: number }> {
  const started = process.hrtime.bigint();
  const writer = store.engine === 'sqlite' ? sqliteWriter(store) : postgresWriter(store);
  // A year of activity: scans every few minutes, retests every half minute or so.
  const year = 365 * 24 * 3_600_000;
  const base = Date.now() - year;
  const scanEvery = Math.floor(year / Math.max(1, size.scans));
  const retestEvery = Math.floor(year / Math.max(1, size.retests));
  const findingEvery = Math.floor(year / Math.max(1, size.findings));
  const idAt = idsAt();
  const sources = TEMPLATES.map((id) => {
    const encoded = Buffer.from(`id: ${id}\ninfo:\n  name: ${id}\n  severity: info\n`).toString('base64');
    return { id, encoded, hash: createHash('sha256').update(encoded).digest('hex') };
  });
  await store.connection.db
    .insertInto('template_source')
    .values(sources.map((s) => ({ hash: s.hash, encoded: s.encoded })))
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();

  const scanIds: string[] = [];
  await writer(SCAN, size.scans, (i) => {
    const id = newId();
    scanIds.push(id);
    const created = base + i * scanEvery;
    const status = ['finished', 'failed', 'running', 'uploaded'][i % 4]!;
    const name = scanName(i);
    return [
      id,
      teamId,
      name,
      name.toLowerCase(),
      status,
      status === 'running' ? 50 : 100,
      created,
      created,
      created,
      created + 60_000,
      60_000,
      20,
      5,
      100,
      1,
      2,
      3,
      2,
      1,
      1,
      1,
    ];
  });
  await writer(SCAN_TEMPLATE, size.scans * 2, (i) => {
    const scan = scanIds[i >> 1]!;
    const template = sources[i % sources.length]!;
    return [
      scan,
      i & 1,
      `${template.id}-${i & 1}`,
      `/t/${template.id}.yaml`,
      `https://cloud.projectdiscovery.io/public/${template.id}`,
      template.hash,
      1,
    ];
  });
  // Their lists, as the store keeps them on each scan when it writes its templates.
  await keepEveryScanLists(store.connection.db, store.engine);
  const findingIds: string[] = [];
  await writer(FINDING, size.findings, (i) => {
    const template = sources[i % sources.length]!;
    const created = base + i * findingEvery;
    // Made when it was recorded, as a vuln id is: findings sort by id newest first.
    const id = idAt(created);
    findingIds.push(id);
    const row = {
      id,
      scan_id: scanIds[i % scanIds.length]!,
      vuln_hash: createHash('md5').update(String(i)).digest('hex'),
      severity: SEVERITIES[i % 6]!,
      template_id: template.id,
      template_path: `/t/${template.id}.yaml`,
      template_url: `https://cloud.projectdiscovery.io/public/${template.id}`,
      target: `host${i % 5000}.example.test`,
      created_at: created,
    };
    return [
      id,
      teamId,
      row.scan_id,
      row.vuln_hash,
      'open',
      row.severity,
      row.template_id,
      row.template_path,
      row.template_url,
      template.hash,
      row.target,
      event(i, true),
      servedFindingFields(eventObject(i, true)),
      servedFindingHead(row),
      created,
      created,
    ];
  });
  await writer(RETEST, size.retests, (i) => {
    const template = sources[i % sources.length]!;
    const created = base + i * retestEvery;
    const matched = i % 3 !== 0;
    const events = [eventObject(i, matched)];
    const finding = findingIds[i % findingIds.length]!;
    const scan = scanIds[i % scanIds.length]!;
    const target = `host${i % 5000}.example.test`;
    const path = `/t/${template.id}.yaml`;
    const url = `https://cloud.projectdiscovery.io/public/${template.id}`;
    return [
      newId(),
      teamId,
      finding,
      scan,
      target,
      template.id,
      path,
      url,
      template.hash,
      matched ? 1 : 0,
      matched ? 'matched' : 'not_matched',
      matched ? 'open' : 'fixed',
      `[${JSON.stringify(events[0])}]`,
      servedRetestFields({
        matcherStatus: matched,
        vulnId: finding,
        target,
        templateUrl: url,
        createdAt: created,
        updatedAt: created,
        scanId: scan,
        eventsJson: servedEventsJson(events),
        templateId: template.id,
        templatePath: path,
      }),
      created,
      created,
    ];
  });
  for (const [buckets, rows] of [
    ['scan_bucket', 'scan'],
    ['retest_bucket', 'retest'],
  ] as const) {
    await sql`insert into ${sql.table(buckets)} (team_id, bucket, n)
      select team_id, (created_at / 86400000) * 86400000, count(*) from ${sql.table(rows)}
      where team_id = ${teamId} group by team_id, (created_at / 86400000) * 86400000`.execute(
      store.connection.db,
    );
  }
  // Recounted rather than left to the triggers, which PostgreSQL skips while loading in bulk.
  await sql`delete from scan_status_bucket where team_id = ${teamId}`.execute(store.connection.db);
  await sql`insert into scan_status_bucket (team_id, status, bucket, n)
    select team_id, status, (created_at / 86400000) * 86400000, count(*) from scan where team_id = ${teamId}
    group by team_id, status, (created_at / 86400000) * 86400000`.execute(store.connection.db);
  if (store.engine === 'postgres') {
    // The scans' name grams (migration 0021, in its spans of 32 days), which a search reads
    // first: without them every search would answer an empty page without reading a scan.
    await sql`delete from scan_name_gram where team_id = ${teamId}`.execute(store.connection.db);
    await sql`insert into scan_name_gram (team_id, gram, span, days)
      select team_id, gram, span, bit_or(days) from (
        select distinct team_id, substr(name_folded, i, n) as gram, created_at - created_at % ${sql.lit(32 * 86_400_000)} as span,
          1 << ((created_at % ${sql.lit(32 * 86_400_000)}) / 86400000)::integer as days
        from scan, (values (2), (3)) g (n), generate_series(1, char_length(name_folded) - n + 1) i
        where team_id = ${teamId}) grams
      group by team_id, gram, span`.execute(store.connection.db);
  }
  await sql`delete from finding_bucket where team_id = ${teamId}`.execute(store.connection.db);
  await sql`insert into finding_bucket (team_id, bucket, severity, vuln_status, n)
    select team_id, substr(id, 1, 3), severity, vuln_status, count(*) from finding where team_id = ${teamId}
    group by team_id, substr(id, 1, 3), severity, vuln_status`.execute(store.connection.db);
  await sql`delete from finding_tally where team_id = ${teamId}`.execute(store.connection.db);
  await sql`insert into finding_tally (team_id, target, template_id, severity, vuln_status, n)
    select team_id, target, template_id, severity, vuln_status, count(*) from finding where team_id = ${teamId}
    group by team_id, target, template_id, severity, vuln_status`.execute(store.connection.db);
  if (store.engine === 'postgres') await sql`vacuum analyze`.execute(store.connection.db);
  else await sql`analyze`.execute(store.connection.db);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rows: size.scans * 3 + size.findings + size.retests, seconds };
}

/**
 * Ids in the xid format made at a given instant (as `newId` makes them at the present one): the
 * second, then a fixed machine and process part, then a counter, so they stay unique.
 */
function idsAt(): (at: number) => string {
  const bytes = new Uint8Array(12);
  const view = new DataView(bytes.buffer);
  bytes.set([0x6b, 0x68, 0x6c, 0x62, 0x6e], 4);
  let counter = 0;
  return (at) => {
    view.setUint32(0, Math.floor(at / 1000));
    counter = (counter + 1) & 0xffffff;
    bytes[9] = counter >> 16;
    bytes[10] = (counter >> 8) & 0xff;
    bytes[11] = counter & 0xff;
    return new Xid(bytes).toString();
  };
}

type Writer = (rows: Rows, count: number, row: (i: number) => Value[]) => Promise<void>;

function sqliteWriter(store: Store): Writer {
  const { connection } = store;
  if (connection.engine !== 'sqlite') throw new Error('not SQLite');
  const db = connection.sqlite;
  return async (rows, count, row) => {
    // Bulk loading consistent generated rows: foreign keys are not checked row by row.
    db.pragma('foreign_keys = OFF');
    const insert = db.prepare(
      `insert into ${rows.table} (${rows.columns.join(', ')}) values (${rows.columns.map(() => '?').join(', ')})`,
    );
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) insert.run(row(i));
    });
    for (let from = 0; from < count; from += 50_000) batch(from, Math.min(count, from + 50_000));
    db.pragma('foreign_keys = ON');
  };
}

function postgresWriter(store: Store): Writer {
  const { connection } = store;
  if (connection.engine !== 'postgres') throw new Error('not PostgreSQL');
  return async (rows, count, row) => {
    // One JSON parameter per batch: PostgreSQL parses JSON much faster than array literals.
    const columns = rows.columns.join(', ');
    const record = rows.columns.map((column, i) => `${column} ${rows.types[i]}`).join(', ');
    const statement = `insert into ${rows.table} (${columns}) select ${columns} from json_to_recordset($1::json) as r(${record})`;
    const client = await connection.pool.connect();
    try {
      // Bulk loading consistent generated rows: the per-row foreign key triggers are skipped.
      await client.query('set session_replication_role = replica');
      for (let from = 0; from < count; from += 5_000) {
        const batch: Record<string, Value>[] = [];
        for (let i = from; i < Math.min(count, from + 5_000); i++) {
          const values = row(i);
          batch.push(Object.fromEntries(rows.columns.map((column, c) => [column, values[c] ?? null])));
        }
        await client.query(statement, [JSON.stringify(batch)]);
      }
      await client.query('reset session_replication_role');
    } finally {
      client.release();
    }
  };
}

/** A retest row as the fill below reads it (PostgreSQL answers `bigint` as text). */
type UnservedRetest = Omit<RetestFieldColumns, 'created_at' | 'updated_at'> & {
  readonly id: string;
  readonly created_at: number | string;
  readonly updated_at: number | string;
};

const UNSERVED_RETEST_COLUMNS =
  'finding_id, scan_id, target, template_id, template_path, template_url, matcher_status, created_at, updated_at, events, served_events';

function retestFields(row: UnservedRetest): string {
  return retestFieldsOf({ ...row, created_at: Number(row.created_at), updated_at: Number(row.updated_at) });
}

/**
 * Writes the served fields of retest results that have none (a store seeded before migration
 * 0024 and kept), as recording them now would: the benchmark then measures what a store written
 * by this version serves.
 */
export async function fillServedRetestFields(store: Store): Promise<number> {
  const { connection } = store;
  let filled = 0;
  if (connection.engine === 'sqlite') {
    const db = connection.sqlite;
    const read = db.prepare<[number], UnservedRetest & { r: number }>(
      `select rowid as r, id, ${UNSERVED_RETEST_COLUMNS} from retest where rowid > ? and served_fields is null order by rowid limit 10000`,
    );
    const write = db.prepare('update retest set served_fields = ?, served_events = null where rowid = ?');
    const fill = db.transaction((rows: (UnservedRetest & { r: number })[]) => {
      for (const row of rows) write.run(retestFields(row), row.r);
    });
    for (let after = 0; ; ) {
      const rows = read.all(after);
      if (rows.length === 0) break;
      fill(rows);
      filled += rows.length;
      after = rows.at(-1)!.r;
    }
    return filled;
  }
  return fillOnPostgres<UnservedRetest>(connection.pool, {
    table: 'retest',
    columns: UNSERVED_RETEST_COLUMNS,
    column: 'served_fields',
    // A result's served fields hold its served events.
    alsoSet: 'served_events = null',
    write: retestFields,
  });
}

/**
 * Writes the served heads of findings that have none on PostgreSQL (a store seeded before
 * migration 0026 and kept), as recording them now would. SQLite's pages are written from the
 * columns and do not read them.
 */
export async function fillServedFindingHeads(store: Store): Promise<number> {
  const { connection } = store;
  if (connection.engine === 'sqlite') return 0;
  return fillOnPostgres<HeadColumns>(connection.pool, {
    table: 'finding',
    columns:
      'target, template_url, created_at::float8 as created_at, scan_id, template_id, template_path, vuln_hash, severity',
    column: 'served_head',
    write: servedFindingHead,
  });
}

type HeadColumns = Parameters<typeof servedFindingHead>[0];

/**
 * Writes the served fields of findings that have none (a store seeded before migration 0016 and
 * kept), as recording them now would.
 */
export async function fillServedFindingFields(store: Store): Promise<number> {
  const { connection } = store;
  let filled = 0;
  if (connection.engine === 'sqlite') {
    const db = connection.sqlite;
    const read = db.prepare<[number], { r: number; event: string }>(
      'select rowid as r, event from finding where rowid > ? and served_fields is null order by rowid limit 10000',
    );
    const write = db.prepare('update finding set served_fields = ? where rowid = ?');
    const fill = db.transaction((rows: { r: number; event: string }[]) => {
      for (const row of rows) write.run(servedFindingFields(JSON.parse(row.event) as ResultEvent), row.r);
    });
    for (let after = 0; ; ) {
      const rows = read.all(after);
      if (rows.length === 0) break;
      fill(rows);
      filled += rows.length;
      after = rows.at(-1)!.r;
    }
    return filled;
  }
  return fillOnPostgres<{ id: string; event: string }>(connection.pool, {
    table: 'finding',
    columns: 'event',
    column: 'served_fields',
    write: (row) => servedFindingFields(JSON.parse(row.event) as ResultEvent),
  });
}

/**
 * Writes `column` of the rows of `table` where it is null, on PostgreSQL: each row's `write` of
 * its id and `columns`, in batches of 5,000 by id, then `VACUUM ANALYZE` so that the pages'
 * index-only scans find the visibility map set. Returns how many rows were written.
 */
async function fillOnPostgres<Row extends { id: string }>(
  pool: pg.Pool,
  fill: {
    table: 'retest' | 'finding';
    columns: string;
    column: 'served_fields' | 'served_head';
    alsoSet?: string;
    write: (row: Row) => string;
  },
): Promise<number> {
  const { table, columns, column, alsoSet, write } = fill;
  const set = `${column} = v.text${alsoSet === undefined ? '' : `, ${alsoSet}`}`;
  let filled = 0;
  const client = await pool.connect();
  try {
    for (let after = ''; ; ) {
      const { rows } = await client.query<Row>(
        `select id, ${columns} from ${table} where id > $1 and ${column} is null order by id limit 5000`,
        [after],
      );
      if (rows.length === 0) break;
      await client.query(
        `update ${table} set ${set} from unnest($1::text[], $2::text[]) as v(id, text) where ${table}.id = v.id`,
        [rows.map((row) => row.id), rows.map(write)],
      );
      filled += rows.length;
      after = rows.at(-1)!.id;
    }
    if (filled > 0) await client.query(`vacuum analyze ${table}`);
  } finally {
    client.release();
  }
  return filled;
}
