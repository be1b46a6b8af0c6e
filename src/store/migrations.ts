import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/**
 * The migration after which rows written before keep their old layout on PostgreSQL until
 * rewritten by hand (see `adviceAfter`).
 */
export const SERVED_TEXTS_KEPT_INLINE = '0028_served_texts_kept_inline';

/**
 * The schema's history, oldest first; names sort in order. Never edit a released migration: add
 * a new one. Every migration must run unchanged on SQLite and PostgreSQL.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001_initial': { up: initial },
  '0002_listing_buckets': { up: listingBuckets },
  '0003_scan_chunks': { up: scanChunks },
  '0004_change_notifications': { up: changeNotifications },
  '0005_scan_authentication': { up: scanAuthentication },
  '0006_served_events': { up: servedEvents },
  '0007_scan_listing_indexes': { up: scanListingIndexes },
  '0008_scan_status_buckets': { up: scanStatusBuckets },
  '0009_scan_name_search': { up: scanNameSearch },
  '0010_scan_runs_done': { up: scanRunsDone },
  '0011_api_key_scope': { up: apiKeyScope },
  '0012_finding_team_order': { up: findingTeamOrder },
  '0013_dashboard_finding_indexes': { up: dashboardFindingIndexes },
  '0014_retest_requests': { up: retestRequests },
  '0015_finding_counts': { up: findingCounts },
  '0016_served_fields_ascending_sorts': { up: servedFieldsAscendingSorts },
  '0017_scan_auth_rejected': { up: scanAuthRejected },
  '0018_finding_search_candidates': { up: findingSearchCandidates },
  '0019_scan_name_pairs': { up: scanNamePairs },
  '0020_bucket_spans': { up: bucketSpans },
  '0021_scan_name_grams': { up: scanNameGrams },
  '0022_scan_template_position': { up: scanTemplatePosition },
  '0023_scan_lists': { up: scanLists },
  '0024_retest_served_fields': { up: retestServedFields },
  '0025_scan_lists_compact': { up: scanListsCompact },
  '0026_finding_served_head': { up: findingServedHead },
  '0027_change_notifications_name_table': { up: changeNotificationsNameTable },
  [SERVED_TEXTS_KEPT_INLINE]: { up: servedTextsKeptInline },
  '0029_scan_served': { up: scanServed },
};

/** The PostgreSQL channel migration 0004's triggers notify; never change it (the triggers keep the name). */
export const CHANGE_CHANNEL = 'keyhole_change';

export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1) ?? '';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function initial(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('team')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_key')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_key_team').on('api_key').columns(['team_id', 'created_at']).execute();

  await db.schema
    .createTable('asset_list')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_folded', 'text', (c) => c.notNull())
    .addColumn('asset_count', 'integer', (c) => c.notNull())
    .addColumn('uploaded_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('asset_list_team_order')
    .on('asset_list')
    .columns(['team_id', 'uploaded_at', 'id'])
    .execute();

  await db.schema
    .createTable('asset_target')
    .addColumn('asset_id', 'text', (c) => c.notNull().references('asset_list.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_target_pk', ['asset_id', 'position'])
    .execute();

  await db.schema
    .createTable('scan')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_folded', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('completed_at', 'bigint')
    .addColumn('elapsed_ms', 'bigint')
    .addColumn('total_target', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_template', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_scan', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_critical', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_high', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_medium', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_low', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_info', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('severity_unknown', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_oss', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_cloud', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('scan_frequency', 'text', (c) => c.notNull().defaultTo('once'))
    .addColumn('schedule_last_run', 'bigint')
    .addColumn('is_rescan', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rescan_of', 'text', (c) => c.references('scan.id'))
    .addColumn('rescan_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('scan_team_order')
    .on('scan')
    .columns(['team_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('scan_target')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_target_pk', ['scan_id', 'position'])
    .execute();

  await db.schema
    .createTable('template_source')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('encoded', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('scan_template')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('template_path', 'text', (c) => c.notNull())
    .addColumn('template_url', 'text', (c) => c.notNull())
    .addColumn('template_hash', 'text', (c) => c.references('template_source.hash'))
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('scan_template_pk', ['scan_id', 'template_id'])
    .execute();

  await db.schema
    .createTable('scan_asset')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('asset_id', 'text', (c) => c.notNull().references('asset_list.id'))
    .addPrimaryKeyConstraint('scan_asset_pk', ['scan_id', 'asset_id'])
    .execute();

  await db.schema
    .createTable('finding')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('vuln_hash', 'text', (c) => c.notNull())
    .addColumn('vuln_status', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('template_path', 'text', (c) => c.notNull())
    .addColumn('template_url', 'text', (c) => c.notNull())
    .addColumn('template_hash', 'text', (c) => c.references('template_source.hash'))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // One finding per (scan, vuln_hash): recording or importing the same result twice adds nothing.
  await db.schema
    .createIndex('finding_scan_hash')
    .on('finding')
    .columns(['scan_id', 'vuln_hash'])
    .unique()
    .execute();
  await db.schema.createIndex('finding_scan_order').on('finding').columns(['scan_id', 'id']).execute();

  await db.schema
    .createTable('retest')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('finding_id', 'text', (c) => c.notNull().references('finding.id'))
    .addColumn('scan_id', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('template_path', 'text', (c) => c.notNull())
    .addColumn('template_url', 'text', (c) => c.notNull())
    .addColumn('template_hash', 'text', (c) => c.references('template_source.hash'))
    .addColumn('matcher_status', 'integer', (c) => c.notNull())
    .addColumn('result_type', 'text', (c) => c.notNull())
    .addColumn('vuln_status', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('retest_team_order')
    .on('retest')
    .columns(['team_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('retest_finding').on('retest').columns(['finding_id']).execute();
}

/**
 * Per team and day (UTC), how many scans and retest results were created: a deep page (offset
 * 900,000) is found by summing these few rows instead of stepping over 900,000 index entries.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function listingBuckets(db: Kysely<any>): Promise<void> {
  for (const [bucketTable, rowTable] of [
    ['scan_bucket', 'scan'],
    ['retest_bucket', 'retest'],
  ] as const) {
    await db.schema
      .createTable(bucketTable)
      .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
      .addColumn('bucket', 'bigint', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${bucketTable}_pk`, ['team_id', 'bucket'])
      .execute();
    await sql`insert into ${sql.table(bucketTable)} (team_id, bucket, n)
      select team_id, (created_at / 86400000) * 86400000, count(*) from ${sql.table(rowTable)}
      group by team_id, (created_at / 86400000) * 86400000`.execute(db);
  }
}

/**
 * The chunks of queued scans: a run of the scan's targets that one worker takes at a time. The
 * table is the work queue (workers claim rows with `FOR UPDATE SKIP LOCKED`) and the ledger of
 * what is done, so progress and the end of a scan are decided in the same transactions.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanChunks(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_chunk')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('first_target', 'integer', (c) => c.notNull())
    .addColumn('target_count', 'integer', (c) => c.notNull())
    .addColumn('runs_total', 'integer', (c) => c.notNull())
    .addColumn('runs_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('worker', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_chunk_pk', ['scan_id', 'chunk'])
    .execute();
  await db.schema
    .createIndex('scan_chunk_state')
    .on('scan_chunk')
    .columns(['state', 'lease_until'])
    .execute();
}

/**
 * PostgreSQL: after every statement that writes a table the API reads, `pg_notify` the change
 * channel, so a server can tell that its cached pages are stale without asking the database on
 * every request. The payload is constant (the table's name since 0027), so a transaction notifies
 * once (per table) however many statements it runs; notifications are delivered at commit, and
 * only to listeners on the same database.
 * `scan_chunk` (work-queue leases, renewed often) is left out: the API shows a chunk's effect
 * through the `scan` row updated in the same transaction. SQLite: nothing (its change token needs
 * no trigger).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function changeNotifications(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create function keyhole_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('keyhole_change', '');
      return null;
    end $$`.execute(db);
  const tables = [
    'team',
    'api_key',
    'asset_list',
    'asset_target',
    'scan',
    'scan_target',
    'scan_template',
    'scan_asset',
    'template_source',
    'finding',
    'retest',
    'scan_bucket',
    'retest_bucket',
  ];
  for (const table of tables) {
    await sql`create trigger ${sql.id(`${table}_notify_change`)}
      after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function keyhole_notify_change()`.execute(db);
  }
}

/**
 * How authenticated each scan was, per secret-file entry (never a value: its label, kind, scope and
 * a fingerprint of them): requests sent with its secret, requests refused because its login failed,
 * logins; the row with an empty fingerprint counts requests sent without a secret. A queued scan's
 * rows are created `planned`: a worker lacking one of them does not take the scan's chunks.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanAuthentication(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_auth')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('types', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('planned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('refused', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('logins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('login_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('relogins', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('scan_auth_pk', ['scan_id', 'fingerprint'])
    .execute();
}

/**
 * A retest result's events as the API serves them, written with the result: a page of 100
 * results is spliced from these texts instead of parsing and serialising every event again.
 * Results recorded before have none and are served from `events` as before.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function servedEvents(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('retest').addColumn('served_events', 'text').execute();
}

/**
 * Scan listings filtered by status or sorted by a field read their window in index order and stop
 * after it, instead of sorting every scan of the team for each page: one index per field
 * `sort_asc`/`sort_desc` accepts (`created_at` has `scan_team_order`), each ending in the default
 * order so ties keep pages stable. The status index serves both the filter and the sort.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanListingIndexes(db: Kysely<any>): Promise<void> {
  const sorted: Record<string, readonly string[]> = {
    status: ['status'],
    updated_at: ['updated_at'],
    completed_at: ['completed_at'],
    name: ['name_folded'],
    progress: ['progress'],
    total_target: ['total_target'],
    total_template: ['total_template'],
    total_scan: ['total_scan'],
    rescan_count: ['rescan_count'],
    severity: [
      'severity_critical',
      'severity_high',
      'severity_medium',
      'severity_low',
      'severity_info',
      'severity_unknown',
    ],
  };
  for (const [field, columns] of Object.entries(sorted)) {
    await db.schema
      .createIndex(`scan_team_by_${field}`)
      .on('scan')
      .columns(['team_id', ...columns, 'created_at', 'id'])
      .execute();
  }
  // Several statuses at once, and searches for common words: the newest-first walk reads each
  // scan's status and name from the index, not from its row.
  await db.schema
    .createIndex('scan_team_order_covering')
    .on('scan')
    .columns(['team_id', 'created_at', 'id', 'status', 'name_folded'])
    .execute();
}

/**
 * Per team, status and day (UTC), how many scans were created: a status-filtered listing at a deep
 * offset finds its day by summing these, as `scan_bucket` does for the unfiltered one. A scan's
 * status changes in many places (its lifecycle, workers completing chunks), so triggers keep the
 * counts, in the transaction of the change.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanStatusBuckets(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_status_bucket')
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_status_bucket_pk', ['team_id', 'status', 'bucket'])
    .execute();
  await sql`insert into scan_status_bucket (team_id, status, bucket, n)
    select team_id, status, (created_at / 86400000) * 86400000, count(*) from scan
    group by team_id, status, (created_at / 86400000) * 86400000`.execute(db);
  const add = (row: 'new' | 'old', n: string) =>
    sql.raw(`insert into scan_status_bucket (team_id, status, bucket, n)
      values (${row}.team_id, ${row}.status, (${row}.created_at / 86400000) * 86400000, ${n})
      on conflict (team_id, status, bucket) do update set n = scan_status_bucket.n + excluded.n;`);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function keyhole_count_scan_status() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.status = new.status then return null; end if;
        if tg_op in ('UPDATE', 'DELETE') then ${add('old', '-1')} end if;
        if tg_op in ('UPDATE', 'INSERT') then ${add('new', '1')} end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger scan_status_count after insert or delete or update of status on scan
      for each row execute function keyhole_count_scan_status()`.execute(db);
    return;
  }
  await sql`create trigger scan_status_count_insert after insert on scan begin ${add('new', '1')} end`.execute(
    db,
  );
  await sql`create trigger scan_status_count_delete after delete on scan begin ${add('old', '-1')} end`.execute(
    db,
  );
  await sql`create trigger scan_status_count_update after update of status on scan
    when old.status <> new.status begin ${add('old', '-1')} ${add('new', '1')} end`.execute(db);
}

/**
 * An index of the trigrams of scan names, so that a search for a rare word reads the scans that
 * contain it instead of every scan's name. It only narrows: every candidate is checked again
 * with the literal comparison (see search.ts), so the results are those of a plain scan.
 * SQLite: an FTS5 table with the trigram tokenizer over the folded names (scan ids beside them),
 * kept by triggers. PostgreSQL: a `pg_trgm` GIN index when the extension can be installed; without
 * it searches scan the names as before.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanNameSearch(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`savepoint trigram`.execute(db);
    try {
      await sql`create extension if not exists pg_trgm`.execute(db);
      await sql`create index scan_name_trigram on scan using gin (name_folded gin_trgm_ops)`.execute(db);
      await sql`release savepoint trigram`.execute(db);
    } catch {
      // Not installed on the server, or not allowed to this user: searches stay plain scans.
      await sql`rollback to savepoint trigram`.execute(db);
    }
    return;
  }
  await sql`create virtual table scan_name_search
    using fts5(name_folded, scan_id unindexed, tokenize = 'trigram case_sensitive 1')`.execute(db);
  await sql`insert into scan_name_search (name_folded, scan_id) select name_folded, id from scan`.execute(db);
  await sql`create trigger scan_name_search_insert after insert on scan begin
    insert into scan_name_search (name_folded, scan_id) values (new.name_folded, new.id); end`.execute(db);
  await sql`create trigger scan_name_search_delete after delete on scan begin
    delete from scan_name_search where scan_id = old.id; end`.execute(db);
  await sql`create trigger scan_name_search_update after update of name_folded on scan begin
    delete from scan_name_search where scan_id = old.id;
    insert into scan_name_search (name_folded, scan_id) values (new.name_folded, new.id); end`.execute(db);
}

/**
 * The template runs of a scan that finished, so that `-resume` runs only the others: the template
 * by its id (unique in a scan) and the target by its position in `scan_target` (-1 for a
 * self-contained template's one run).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanRunsDone(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_run_done')
    .addColumn('scan_id', 'text', (c) => c.notNull().references('scan.id'))
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('target', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_run_done_pk', ['scan_id', 'template_id', 'target'])
    .execute();
}

/**
 * A team's findings newest first (`GET /v1/scans/results`) read in index order, the walk stopping
 * after the page, instead of sorting all the team's findings (vuln ids are xids, which sort by the
 * second they were made). The index holds every column the filters read, so a page's window and
 * a filtered total are found in the index alone, never in the rows, whose events are most of
 * their bytes.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function findingTeamOrder(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('finding_team_order')
    .on('finding')
    .columns(['team_id', 'id', 'scan_id', 'severity', 'vuln_status', 'created_at', 'target', 'template_id'])
    .execute();
}

/**
 * The dashboard's findings table filters a scan's findings by severity, status, host or template
 * and pages through them in that order: each of these indexes walks one such page.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function dashboardFindingIndexes(db: Kysely<any>): Promise<void> {
  const indexes = {
    finding_scan_severity: 'severity',
    finding_scan_status: 'vuln_status',
    finding_scan_target: 'target',
    finding_scan_template: 'template_id',
  };
  for (const [name, column] of Object.entries(indexes)) {
    await db.schema.createIndex(name).on('finding').columns(['scan_id', column, 'id']).execute();
  }
}

/**
 * What an API key may do: `read` (list what its team has) or `write` (also upload, triage, delete
 * and start work); keys made before could only read, so they stay `read`. And, since writes come
 * with it, the history of each finding's triage: who set which status when. (Its rows are written
 * with the finding's own update, whose trigger already notifies the API's page cache.)
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function apiKeyScope(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_key')
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo('read'))
    .execute();
  await db.schema
    .createTable('finding_status_change')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('finding_id', 'text', (c) => c.notNull().references('finding.id'))
    .addColumn('previous_status', 'text', (c) => c.notNull())
    .addColumn('vuln_status', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addColumn('changed_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('finding_status_change_order')
    .on('finding_status_change')
    .columns(['finding_id', 'changed_at', 'id'])
    .execute();
}

/**
 * Retests asked for through the API, waiting for whoever runs them: `keyhole serve` itself on
 * SQLite, `keyhole worker` on PostgreSQL. `needs_secrets`: the finding was found with a secret, so
 * only a runner with secret files may take it (without them it would look fixed).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function retestRequests(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('retest_request')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('finding_id', 'text', (c) => c.notNull().references('finding.id'))
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('needs_secrets', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('runner', 'text')
    .addColumn('retest_id', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('retest_request_waiting')
    .on('retest_request')
    .columns(['state', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('retest_request_finding')
    .on('retest_request')
    .columns(['finding_id'])
    .execute();
}

/**
 * Counts of each team's findings kept by triggers, in the transaction of the change, so that a
 * findings page neither counts its total row by row nor walks the index up to a deep offset:
 * - `finding_bucket`: per team, id bucket (the first 3 characters of the vuln id, an xid: the
 *   top 15 bits of the second it was recorded, about 36 hours), severity and status. A page at
 *   a deep offset finds its bucket by summing these and skips within that bucket only.
 * - `finding_tally`: per team, target, template, severity and status. A search of targets and
 *   templates is counted over these rows (as many as distinct findings, not as the findings
 *   each scan records again).
 * A finding's status changes by triage; its other counted fields never change.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function findingCounts(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('finding_bucket')
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('vuln_status', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('finding_bucket_pk', ['team_id', 'bucket', 'severity', 'vuln_status'])
    .execute();
  await db.schema
    .createTable('finding_tally')
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('vuln_status', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('finding_tally_pk', [
      'team_id',
      'target',
      'template_id',
      'severity',
      'vuln_status',
    ])
    .execute();
  await sql`insert into finding_bucket (team_id, bucket, severity, vuln_status, n)
    select team_id, substr(id, 1, 3), severity, vuln_status, count(*) from finding
    group by team_id, substr(id, 1, 3), severity, vuln_status`.execute(db);
  await sql`insert into finding_tally (team_id, target, template_id, severity, vuln_status, n)
    select team_id, target, template_id, severity, vuln_status, count(*) from finding
    group by team_id, target, template_id, severity, vuln_status`.execute(db);
  const add = (row: 'new' | 'old', n: string) =>
    sql.raw(`insert into finding_bucket (team_id, bucket, severity, vuln_status, n)
      values (${row}.team_id, substr(${row}.id, 1, 3), ${row}.severity, ${row}.vuln_status, ${n})
      on conflict (team_id, bucket, severity, vuln_status) do update set n = finding_bucket.n + excluded.n;
    insert into finding_tally (team_id, target, template_id, severity, vuln_status, n)
      values (${row}.team_id, ${row}.target, ${row}.template_id, ${row}.severity, ${row}.vuln_status, ${n})
      on conflict (team_id, target, template_id, severity, vuln_status)
      do update set n = finding_tally.n + excluded.n;`);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function keyhole_count_finding() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and old.vuln_status = new.vuln_status and old.severity = new.severity
          and old.target = new.target and old.template_id = new.template_id then return null; end if;
        if tg_op in ('UPDATE', 'DELETE') then ${add('old', '-1')} end if;
        if tg_op in ('UPDATE', 'INSERT') then ${add('new', '1')} end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger finding_count after insert or delete
      or update of vuln_status, severity, target, template_id on finding
      for each row execute function keyhole_count_finding()`.execute(db);
    return;
  }
  await sql`create trigger finding_count_insert after insert on finding begin ${add('new', '1')} end`.execute(
    db,
  );
  await sql`create trigger finding_count_delete after delete on finding begin ${add('old', '-1')} end`.execute(
    db,
  );
  await sql`create trigger finding_count_update after update of vuln_status, severity, target, template_id on finding
    when old.vuln_status <> new.vuln_status or old.severity <> new.severity
      or old.target <> new.target or old.template_id <> new.template_id
    begin ${add('old', '-1')} ${add('new', '1')} end`.execute(db);
}

/**
 * - The members of a finding's `/v1/scans/results` item that come from its event (description,
 *   impact, remediation, reference, labels and the event as the API serves it), as JSON text
 *   written with the finding: a page of findings is spliced from these texts instead of parsing
 *   and serialising every event again (an event never changes). Findings recorded before have
 *   none and are served from `event` as before.
 * - Scan listings sorted ascending: their ties keep the default newest-first order, a direction
 *   the indexes of 0007 (all ascending) can only give by sorting every tie (a quarter of the
 *   scans share a status). One index per field with the tie columns descending serves them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function servedFieldsAscendingSorts(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('finding').addColumn('served_fields', 'text').execute();
  const sorted: Record<string, readonly string[]> = {
    created_at: ['created_at'],
    status: ['status'],
    updated_at: ['updated_at'],
    completed_at: ['completed_at'],
    name: ['name_folded'],
    progress: ['progress'],
    total_target: ['total_target'],
    total_template: ['total_template'],
    total_scan: ['total_scan'],
    rescan_count: ['rescan_count'],
    severity: [
      'severity_critical',
      'severity_high',
      'severity_medium',
      'severity_low',
      'severity_info',
      'severity_unknown',
    ],
  };
  for (const [field, columns] of Object.entries(sorted)) {
    const ties = field === 'created_at' ? ['id desc'] : ['created_at desc', 'id desc'];
    await db.schema
      .createIndex(`scan_team_by_${field}_ascending`)
      .on('scan')
      .columns(['team_id', ...columns, ...ties])
      .execute();
  }
  // Without statistics on the new indexes SQLite's planner takes them for searches and
  // descending sorts, which the older indexes serve without sorting.
  await sql`analyze scan`.execute(db);
}

/**
 * Per secret-file entry of a scan, the answers by which the target refused its secret (a 401, a
 * redirect to a login page): a scan whose every answer refused an entry's secret failed, and this
 * says by how much a partly refused one was not authenticated. Scans recorded before count 0.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanAuthRejected(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('scan_auth')
    .addColumn('rejected', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

/**
 * A search of a team's findings that few of them match (a host, a rare template) reads its
 * matches by their targets and templates, found in `finding_tally`, instead of walking the
 * team's findings newest first comparing each. The index leads with the target so that no
 * listing by team takes it for its order (SQLite has no statistics on it to tell).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function findingSearchCandidates(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('finding_search_candidates')
    .on('finding')
    .columns(['target', 'template_id', 'team_id', 'severity', 'vuln_status', 'id'])
    .execute();
}

/**
 * Per team and day (UTC), the pairs of consecutive characters in the folded names of its scans:
 * a search reads only the days that hold every pair of its term, so a term no name holds reads
 * no scan, and one whose scans are all old starts where they are (see search.ts). Kept by
 * triggers; a scan deleted or renamed leaves its pairs, which only makes its day read in vain.
 * SQLite's triggers cannot loop, so they take the positions from a table of 1–512; a longer name
 * marks its day with the pair '' (it may hold any).
 *
 * It replaces SQLite's FTS5 trigram table of 0009: a phrase of common trigrams cost its lookup
 * more than the walk it spared. PostgreSQL keeps its `pg_trgm` index, which its planner weighs.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanNamePairs(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_name_pair')
    .addColumn('team_id', 'text', (c) => c.notNull().references('team.id'))
    .addColumn('pair', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scan_name_pair_pk', ['team_id', 'pair', 'bucket'])
    .execute();
  const day = (row: string) => `(${row}.created_at / ${DAY_MS}) * ${DAY_MS}`;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`insert into scan_name_pair (team_id, pair, bucket)
      select distinct team_id, substr(name_folded, i, 2), ${sql.raw(day('scan'))}
      from scan, generate_series(1, char_length(name_folded) - 1) i`.execute(db);
    // In the order of the key, so that two scans created at once lock their shared pairs in the
    // same order (one waits for the other; neither waits for both).
    await sql`create function keyhole_scan_name_pairs() returns trigger language plpgsql as $$
      begin
        insert into scan_name_pair (team_id, pair, bucket)
          select distinct new.team_id, substr(new.name_folded, i, 2), ${sql.raw(day('new'))}
          from generate_series(1, char_length(new.name_folded) - 1) i
          order by 2
          on conflict do nothing;
        return null;
      end $$`.execute(db);
    await sql`create trigger scan_name_pairs after insert or update of name_folded on scan
      for each row execute function keyhole_scan_name_pairs()`.execute(db);
    // Until autovacuum gets to it, the planner would estimate a search's lookup of the filled
    // table at a few rows, where it reads thousands.
    await sql`analyze scan_name_pair`.execute(db);
    return;
  }
  await sql`drop trigger scan_name_search_insert`.execute(db);
  await sql`drop trigger scan_name_search_delete`.execute(db);
  await sql`drop trigger scan_name_search_update`.execute(db);
  await sql`drop table scan_name_search`.execute(db);
  await db.schema
    .createTable('scan_name_position')
    .addColumn('i', 'integer', (c) => c.primaryKey())
    .execute();
  await sql`insert into scan_name_position (i) select value from json_each(${JSON.stringify(
    Array.from({ length: NAME_POSITIONS }, (_, i) => i + 1),
  )})`.execute(db);
  const pairs = (row: string) =>
    sql.raw(`insert or ignore into scan_name_pair (team_id, pair, bucket)
      select ${row}.team_id, substr(${row}.name_folded, i, 2), ${day(row)} from scan_name_position
      where i < length(${row}.name_folded);
    insert or ignore into scan_name_pair (team_id, pair, bucket)
      select ${row}.team_id, '', ${day(row)} where length(${row}.name_folded) > ${NAME_POSITIONS + 1};`);
  await sql`insert or ignore into scan_name_pair (team_id, pair, bucket)
    select team_id, substr(name_folded, i, 2), ${sql.raw(day('scan'))} from scan
    join scan_name_position on i < length(name_folded)`.execute(db);
  await sql`insert or ignore into scan_name_pair (team_id, pair, bucket)
    select team_id, '', ${sql.raw(day('scan'))} from scan
    where length(name_folded) > ${sql.lit(NAME_POSITIONS + 1)}`.execute(db);
  await sql`create trigger scan_name_pairs_insert after insert on scan begin ${pairs('new')} end`.execute(db);
  await sql`create trigger scan_name_pairs_update after update of name_folded on scan begin ${pairs('new')} end`.execute(
    db,
  );
}

/**
 * SQLite: per team (and status), the day counts of `scan_bucket`, `retest_bucket` and
 * `scan_status_bucket` summed over spans of 32 days, so that a deep page finds its span among a
 * dozen rows a year and then its day among at most 32, instead of summing a row per day (a year
 * of days cost a deep page 0.2 ms, more than reading the page's rows). Kept by triggers on the
 * day tables, whatever changes them: the code's counts (`countRow`, `uncountRows`) and 0008's
 * triggers alike.
 *
 * Not on PostgreSQL, which finds a deep page's day inside the page's own query (see buckets.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function bucketSpans(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  // Floor division, as the days' own buckets are floored.
  const span = (bucket: string) => `(${bucket} - ((${bucket} % ${SPAN_MS}) + ${SPAN_MS}) % ${SPAN_MS})`;
  for (const [days, spans, keys] of [
    ['scan_bucket', 'scan_bucket_span', ['team_id']],
    ['retest_bucket', 'retest_bucket_span', ['team_id']],
    ['scan_status_bucket', 'scan_status_bucket_span', ['team_id', 'status']],
  ] as const) {
    const columns = keys.join(', ');
    await sql`create table ${sql.table(spans)} (
      team_id text not null references team (id),
      ${sql.raw(keys.length > 1 ? 'status text not null,' : '')}
      span bigint not null,
      n integer not null,
      constraint ${sql.raw(`${spans}_pk`)} primary key (${sql.raw(columns)}, span)
    ) without rowid`.execute(db);
    await sql`insert into ${sql.table(spans)} (${sql.raw(columns)}, span, n)
      select ${sql.raw(columns)}, ${sql.raw(span('bucket'))}, sum(n) from ${sql.table(days)}
      group by ${sql.raw(columns)}, ${sql.raw(span('bucket'))}`.execute(db);
    const values = (row: 'new' | 'old') => keys.map((key) => `${row}.${key}`).join(', ');
    const add = (row: 'new' | 'old', sign: '+' | '-') =>
      sql.raw(`insert into ${spans} (${columns}, span, n) values (${values(row)}, ${span(`${row}.bucket`)}, ${sign}${row}.n)
        on conflict (${columns}, span) do update set n = ${spans}.n + excluded.n;`);
    await sql`create trigger ${sql.raw(`${spans}_insert`)} after insert on ${sql.table(days)}
      begin ${add('new', '+')} end`.execute(db);
    await sql`create trigger ${sql.raw(`${spans}_update`)} after update on ${sql.table(days)}
      begin ${add('old', '-')} ${add('new', '+')} end`.execute(db);
    await sql`create trigger ${sql.raw(`${spans}_delete`)} after delete on ${sql.table(days)}
      begin ${add('old', '-')} end`.execute(db);
  }
}

/**
 * Per team and span of 32 days, the days (a bit each, the span's first day the lowest) whose
 * scans' folded names hold a gram: each pair and each run of three consecutive characters. A
 * search reads a row per gram of its term and span (a dozen a year) where 0019's table held a
 * row per pair and day, and narrows by its term's runs of three, which lie in far fewer days
 * than its pairs (`scan 4242`: 45 days hold its pairs, 3 its runs of three). Replaces
 * `scan_name_pair`; kept by triggers as it was, with the same marker '' for a name longer than
 * SQLite's triggers take grams of (its day may hold any). An update sets a day's bit only when
 * it is not set yet, so most scans created write nothing here.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then.
async function scanNameGrams(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`create table scan_name_gram (
    team_id text not null references team (id),
    gram text not null,
    span bigint not null,
    days integer not null,
    constraint scan_name_gram_pk primary key (team_id, gram, span)
  ) ${sql.raw(postgres ? '' : 'without rowid')}`.execute(db);
  // Floor division, as 0020's spans; a day's bit counts from the span's first day (day 31's is
  // PostgreSQL's integer sign bit, which the code reads back as the same 32 bits).
  const span = (at: string) => `(${at} - ((${at} % ${SPAN_MS}) + ${SPAN_MS}) % ${SPAN_MS})`;
  const day = (at: string) => `((${at} - ${span(at)}) / ${DAY_MS})`;
  const merge = `on conflict (team_id, gram, span) do update set days = scan_name_gram.days | excluded.days
    where (scan_name_gram.days & excluded.days) = 0`;
  if (postgres) {
    const grams = (row: string) => `select distinct ${row}.team_id, substr(${row}.name_folded, i, n) as gram,
      ${span(`${row}.created_at`)} as span, 1 << ${day(`${row}.created_at`)}::integer as days
      from ${row === 'scan' ? 'scan,' : ''} (values (2), (3)) g (n), generate_series(1, char_length(${row}.name_folded) - n + 1) i`;
    await sql`drop trigger scan_name_pairs on scan`.execute(db);
    await sql`drop function keyhole_scan_name_pairs()`.execute(db);
    await sql`drop table scan_name_pair`.execute(db);
    await sql
      .raw(`insert into scan_name_gram (team_id, gram, span, days)
      select team_id, gram, span, bit_or(days) from (${grams('scan')}) grams
      group by team_id, gram, span`)
      .execute(db);
    // In the order of the key, so that two scans created at once lock their shared grams in the
    // same order (one waits for the other; neither waits for both).
    await sql
      .raw(`create function keyhole_scan_name_grams() returns trigger language plpgsql as $$
      begin
        insert into scan_name_gram (team_id, gram, span, days) ${grams('new')} order by 2 ${merge};
        return null;
      end $$`)
      .execute(db);
    await sql`create trigger scan_name_grams after insert or update of name_folded on scan
      for each row execute function keyhole_scan_name_grams()`.execute(db);
    await sql`analyze scan_name_gram`.execute(db);
    return;
  }
  await sql`drop trigger scan_name_pairs_insert`.execute(db);
  await sql`drop trigger scan_name_pairs_update`.execute(db);
  await sql`drop table scan_name_pair`.execute(db);
  // The grams at 0019's positions 1–512; a longer name marks its day with ''.
  const grams = (row: string) => `select ${row}.team_id, substr(${row}.name_folded, i, n) as gram,
      ${span(`${row}.created_at`)} as span, 1 << ${day(`${row}.created_at`)} as days
      from ${row === 'scan' ? 'scan,' : ''} scan_name_position, (select 2 as n union all select 3) g
      where i <= length(${row}.name_folded) - n + 1
    union all select ${row}.team_id, '', ${span(`${row}.created_at`)}, 1 << ${day(`${row}.created_at`)}
      ${row === 'scan' ? 'from scan' : ''} where length(${row}.name_folded) > ${NAME_POSITIONS + 1}`;
  // Distinct powers of two sum to their union.
  await sql
    .raw(`insert into scan_name_gram (team_id, gram, span, days)
    select team_id, gram, span, sum(distinct days) from (${grams('scan')}) grams
    group by team_id, gram, span`)
    .execute(db);
  // The select's `where` tells SQLite's parser that `on conflict` begins the upsert, not a join.
  const set = (row: string) => `insert into scan_name_gram (team_id, gram, span, days)
      select * from (${grams(row)}) where true ${merge};`;
  await sql
    .raw(`create trigger scan_name_grams_insert after insert on scan begin ${set('new')} end`)
    .execute(db);
  await sql
    .raw(`create trigger scan_name_grams_update after update of name_folded on scan begin ${set('new')} end`)
    .execute(db);
}

/**
 * 0022: a scan's templates in their order (`scan_template_position`), read without sorting them:
 * its kept lists are written from them (0023), and its templates, and the first of them the
 * dashboard suggests, are read in that order. Each scan a page of `/v1/scans` listed on SQLite
 * sorted its templates in a temporary B-tree of its own until 0023 (a tenth of the statement
 * writing a page with two templates a scan, measured); a scan of the template library has
 * thousands.
 */
async function scanTemplatePosition(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('scan_template_position')
    .on('scan_template')
    .columns(['scan_id', 'position'])
    .execute();
}

/**
 * 0023: a scan's lists kept on its row as JSON array texts (see scan-lists.ts), written from
 * `scan_template` and `scan_asset` for the scans already recorded (one update of every scan).
 */
async function scanLists(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const columns = [
    'listed_template_ids',
    'listed_public_templates',
    'listed_template_urls',
    'listed_asset_ids',
  ] as const;
  for (const column of columns)
    await db.schema
      .alterTable('scan')
      .addColumn(column, 'text', (col) => col.notNull().defaultTo('[]'))
      .execute();
  const aggregated = (rows: string, value: string, order: string) =>
    postgres
      ? `coalesce((select json_agg(${value} order by ${order}) from ${rows})::text, '[]')`
      : `coalesce((select json_group_array(${value} order by ${order}) from ${rows}), '[]')`;
  const templates = (value: string, where: string) =>
    aggregated(`scan_template t where t.scan_id = scan.id and ${where}`, value, 't.position');
  await sql
    .raw(`update scan set
      listed_template_ids = ${templates('t.template_id', 'true')},
      listed_public_templates = ${templates('t.template_id', 't.is_public = 1')},
      listed_template_urls = ${templates('t.template_url', "t.template_url <> ''")},
      listed_asset_ids = ${aggregated('scan_asset a where a.scan_id = scan.id', 'a.asset_id', 'a.asset_id')}`)
    .execute(db);
}

/**
 * 0024: a retest result's listing item up to its template, kept with it as the JSON text the API
 * serves (`served_fields`, see `servedRetestFields`), in place of its served events, which the
 * text holds. Results recorded before have none and are served from their columns as before.
 */
async function retestServedFields(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('retest').addColumn('served_fields', 'text').execute();
}

/**
 * 0025: PostgreSQL's kept lists as `JSON.stringify` writes them, as the store now keeps them (see
 * scan-lists.ts), so that a page splices them as they are: 0023 wrote them by `json_agg`, which
 * puts a space after each comma, and a page had to parse and write each of them again (4–5 µs a
 * scan, measured). Rewritten from the texts themselves, element by element in their order; only
 * the scans with such a list. SQLite's lists are so already.
 */
async function scanListsCompact(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const columns = [
    'listed_template_ids',
    'listed_public_templates',
    'listed_template_urls',
    'listed_asset_ids',
  ];
  // `", "` separates two strings in json_agg's form; inside a string its quote would be escaped.
  const spaced = (column: string) => `${column} like '%", "%'`;
  const compact = (column: string) =>
    `${column} = case when ${spaced(column)} then (select coalesce('[' || string_agg(to_json(e.value)::text, ',' order by e.n) || ']', '[]')
      from json_array_elements_text(${column}::json) with ordinality as e(value, n)) else ${column} end`;
  await sql
    .raw(`update scan set ${columns.map(compact).join(', ')} where ${columns.map(spaced).join(' or ')}`)
    .execute(db);
}

/**
 * 0026: the members of a finding's listing item that never change, kept with it as the API
 * serves them (`served_head`, see `servedFindingHead`), so that PostgreSQL sends five columns a
 * finding for a page rather than fourteen to decode and serialise. Findings recorded before have
 * none and are served from their columns as before.
 */
async function findingServedHead(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('finding').addColumn('served_head', 'text').execute();
}

/**
 * 0027: PostgreSQL's change notifications name the table written (`TG_TABLE_NAME`), so a server
 * keeps what it read from other tables across the change (see `ChangeCounter`): counts of retest
 * results stay kept while scans record their progress. A transaction then notifies once per table
 * it wrote rather than once. A server older than this migration takes any payload as a change to
 * every table, as before.
 *
 * A scan's row is updated all along its run (its progress, its findings' severity counts), but
 * what listings keep of scans (counts per day and status, positions, a search's matches) reads
 * only its team, name, status and creation time: an update that sets none of them is announced
 * as `scan fields`, which no kept count reads (the page cache's token moves with it all the same),
 * and one that sets any of them as `scan`.
 */
async function changeNotificationsNameTable(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create or replace function keyhole_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('keyhole_change', TG_TABLE_NAME);
      return null;
    end $$`.execute(db);
  await sql`create function keyhole_notify_fields() returns trigger language plpgsql as $$
    begin
      perform pg_notify('keyhole_change', TG_TABLE_NAME || ' fields');
      return null;
    end $$`.execute(db);
  await sql`drop trigger scan_notify_change on scan`.execute(db);
  await sql`create trigger scan_notify_change
    after insert or delete or truncate or update of ${sql.raw(SCAN_KEPT_COLUMNS.join(', '))} on scan
    for each statement execute function keyhole_notify_change()`.execute(db);
  await sql`create trigger scan_notify_fields after update on scan
    for each statement execute function keyhole_notify_fields()`.execute(db);
}

/**
 * 0028: PostgreSQL keeps the texts a page of findings or retest results is read from in the row,
 * and moves the events out of it instead. With the default storage (`extended`) for every text,
 * the toaster moved the largest compressed value out of a large row first, often `served_fields`,
 * so every result of a page cost a lookup in the TOAST table's index and a read of its heap
 * (PostgreSQL's CPU for a page of 50 retest results 0.49–0.52 → 0.36–0.42 ms, measured,
 * BENCHMARKS.md); and while the row was still over its target, every text longer than a TOAST
 * pointer went too (a finding's `vuln_hash`). Storage `main` for every text but the events: each
 * compressed when the row is large, moved out only when the row would not fit a page otherwise.
 * Rows written before keep their layout until rewritten (`VACUUM FULL`, then `VACUUM`, see
 * docs/store-and-api.md). SQLite keeps every value in its row: nothing to do.
 */
async function servedTextsKeptInline(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [table, columns] of Object.entries(KEPT_IN_ROW)) {
    const altered = columns.map((column) => `alter column ${column} set storage main`).join(', ');
    await sql.raw(`alter table ${table} ${altered}`).execute(db);
  }
}

/** The texts of the tables 0028 keeps in the row: all but the events, which pages never read. */
const KEPT_IN_ROW = {
  finding: [
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
    'served_fields',
    'served_head',
  ],
  retest: [
    'id',
    'team_id',
    'finding_id',
    'scan_id',
    'target',
    'template_id',
    'template_path',
    'template_url',
    'template_hash',
    'result_type',
    'vuln_status',
    'served_fields',
  ],
};

/**
 * 0029: on PostgreSQL, each scan keeps the JSON text `/v1/scans` serves it as (`served`, see
 * `servedScanColumns`), written by PostgreSQL from the row whenever the row is written (a stored
 * generated column), so that a page of scans is a text a scan to send and join rather than ten
 * columns to decode and write as JSON for every page. A running scan's elapsed time moves with
 * the request's time: its text holds the time it started between two U+0001 characters instead
 * (`SCAN_CLOCK_MARK`, which no JSON text holds unescaped), for the page to write. The text is
 * null where `servedScanText` writes differently from what is kept (a timestamp before 1970 or
 * past 9999, a list kept with spaces by an earlier version): those scans are written from their
 * columns as before. The migration rewrites the scan table (it holds its lock meanwhile). A
 * server before PostgreSQL 12 has no generated columns: there the column stays null, and every
 * scan is written from its columns.
 */
async function scanServed(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const version = await sql<{
    version: number;
  }>`select current_setting('server_version_num')::int as version`.execute(db);
  if ((version.rows[0]?.version ?? 0) < 120_000) {
    await sql`alter table scan add column served text`.execute(db);
    return;
  }
  const parameters = SERVED_SCAN_PARAMETERS.map(([column, type]) => `${column} ${type}`).join(', ');
  // An instant as `formatTimestamp` writes it, "" for none; the milliseconds by integer arithmetic
  // (as a double, an instant near 9999 is off by up to 15 µs).
  const time = (ms: string) =>
    `'"' || coalesce(to_char(to_timestamp((${ms} / 1000)::double precision) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((${ms} % 1000)::text, 3, '0') || 'Z', '') || '"'`;
  // `formatElapsed`: whole seconds (halves up) from a second on, as a Go duration.
  const seconds = '((coalesce(elapsed_ms, 0) + 500) / 1000)';
  const elapsed = `case
      when elapsed_ms is null and status = 'running' and started_at is not null
        then chr(1) || started_at::text || chr(1)
      when coalesce(elapsed_ms, 0) <= 0 then '0s'
      when elapsed_ms < 1000 then elapsed_ms::text || 'ms'
      when ${seconds} >= 3600 then (${seconds} / 3600)::text || 'h' || (${seconds} % 3600 / 60)::text || 'm' || (${seconds} % 60)::text || 's'
      when ${seconds} >= 60 then (${seconds} / 60)::text || 'm' || (${seconds} % 60)::text || 's'
      else ${seconds}::text || 's' end`;
  const flag = (column: string) => `case when ${column} = 1 then 'true' else 'false' end`;
  const severities = ['critical', 'high', 'medium', 'low', 'info', 'unknown']
    .map((name, i) => `'${i === 0 ? '{' : ','}"${name}":' || severity_${name}::text`)
    .join(' || ');
  const times = ['created_at', 'updated_at', 'completed_at', 'schedule_last_run'];
  const lists = [
    'listed_asset_ids',
    'listed_public_templates',
    'listed_template_ids',
    'listed_template_urls',
  ];
  // PL/pgSQL, one expression: a generated column's SQL functions are called through the executor
  // each (`to_char` and `to_json` keep them from being inlined), and as an SQL function calling
  // two more this cost PostgreSQL 125 µs a written row, against 48 ms for 20,000 rows without it
  // (measured). Declared immutable, as a generated column requires: `to_char` of a UTC timestamp
  // by this pattern and `to_json` of a text are stable only because other types' output may
  // depend on settings (`DateStyle`, a locale's month names); these read none.
  await sql
    .raw(`create function keyhole_served_scan(${parameters}) returns text
    language plpgsql immutable parallel safe as $fn$
    begin
      return case
        when ${times.map((t) => `${t} not between 0 and ${LAST_OF_YEAR_9999}`).join(' or ')} then null
        when ${lists.map((l) => `strpos(${l}, ', ') > 0`).join(' or ')} then null
        else '{"scan_id":' || to_json(id)::text
          || ',"status":' || to_json(status)::text
          || ',"scan_time_elapsed":"' || ${elapsed}
          || '","progress":' || progress::text
          || ',"failure_reason":' || to_json(failure_reason)::text
          || ',"created_at":' || ${time('created_at')}
          || ',"updated_at":' || ${time('updated_at')}
          || ',"total_target":' || total_target::text
          || ',"completed_at":' || ${time('completed_at')}
          || ',"total_scan":' || total_scan::text
          || ',"total_template":' || total_template::text
          || ',"name":' || to_json(name)::text
          || ',"severity":' || ${severities}
          || '},"is_oss":' || ${flag('is_oss')}
          || ',"is_cloud":' || ${flag('is_cloud')}
          || ',"scan_frequency":' || to_json(scan_frequency)::text
          || ',"schedule_last_run":' || ${time('schedule_last_run')}
          || ',"asset_ids":' || listed_asset_ids
          || ',"is_rescan":' || ${flag('is_rescan')}
          || ',"public_templates":' || listed_public_templates
          || ',"report_config_ids":[],"rescan_count":' || rescan_count::text
          || ',"scan_config_ids":[],"template_ids":' || listed_template_ids
          || ',"template_urls":' || listed_template_urls
          || '}'
      end;
    end
    $fn$`)
    .execute(db);
  const columns = SERVED_SCAN_PARAMETERS.map(([column]) => column).join(', ');
  await sql
    .raw(
      `alter table scan add column served text generated always as (keyhole_served_scan(${columns})) stored`,
    )
    .execute(db);
  await sql`alter table scan alter column served set storage main`.execute(db);
}

/** The columns 0029's `keyhole_served_scan` writes a scan from, with their types. */
const SERVED_SCAN_PARAMETERS = [
  ['id', 'text'],
  ['status', 'text'],
  ['elapsed_ms', 'bigint'],
  ['started_at', 'bigint'],
  ['progress', 'bigint'],
  ['failure_reason', 'text'],
  ['created_at', 'bigint'],
  ['updated_at', 'bigint'],
  ['total_target', 'bigint'],
  ['completed_at', 'bigint'],
  ['total_scan', 'bigint'],
  ['total_template', 'bigint'],
  ['name', 'text'],
  ['severity_critical', 'bigint'],
  ['severity_high', 'bigint'],
  ['severity_medium', 'bigint'],
  ['severity_low', 'bigint'],
  ['severity_info', 'bigint'],
  ['severity_unknown', 'bigint'],
  ['is_oss', 'bigint'],
  ['is_cloud', 'bigint'],
  ['scan_frequency', 'text'],
  ['schedule_last_run', 'bigint'],
  ['listed_asset_ids', 'text'],
  ['is_rescan', 'bigint'],
  ['listed_public_templates', 'text'],
  ['rescan_count', 'bigint'],
  ['listed_template_ids', 'text'],
  ['listed_template_urls', 'text'],
] as const;

/** 9999-12-31T23:59:59.999Z in epoch milliseconds: the last instant `formatTimestamp` writes with four digits. */
const LAST_OF_YEAR_9999 = 253_402_300_799_999;

/** The columns of a scan what listings keep is read by (see buckets.ts, search.ts, positions.ts). */
const SCAN_KEPT_COLUMNS = ['id', 'team_id', 'name', 'name_folded', 'status', 'created_at'];

/** A day in milliseconds, as the bucket tables count them (see buckets.ts). */
const DAY_MS = 86_400_000;
/** 32 days: the span of 0020's sums of day counts (see buckets.ts). */
const SPAN_MS = 32 * DAY_MS;
/** The positions SQLite's triggers take a name's pairs at. */
const NAME_POSITIONS = 512;
