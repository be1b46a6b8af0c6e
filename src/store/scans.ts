import {
  type Kysely,
  type RawBuilder,
  type Selectable,
  type SelectQueryBuilder,
  sql,
  type Updateable,
} from 'kysely';
import { SEVERITIES, type Severity } from '../event/index.js';
import { countRow, DEEP_OFFSET, locate, pastRow, withPlace } from './buckets.js';
import { type ChunkInput, insertChunks } from './chunks.js';
import { type Connection, keptCounts, keptPositions } from './connect.js';
import { StoreRequestError } from './errors.js';
import { newId } from './id.js';
import type { PageQuery, Scan, ScanStatus, ScanTemplate, SeverityCounts, TemplateRef } from './model.js';
import { idAmong } from './page-rows.js';
import { type AuthEntry, insertPlannedEntries } from './scan-auth.js';
import { deleteScan } from './scan-deletion.js';
import { keepScanLists } from './scan-lists.js';
import type { Database, ScanTable } from './schema.js';
import { nameContains, type Span, scanNameContains, searchSpans } from './search.js';
import {
  type ServedScanSource,
  scanElapsedMs,
  servedScanColumns,
  servedScanJson,
  servedScanOf,
} from './served-scans.js';
import { bytesOf, compiledOnce, pageOf, utf8 } from './served-sql.js';
import { encodedOf, loadSources, storeSources } from './templates.js';
import { chunks, fold, writeTransaction } from './tx.js';
import { unplanned } from './unplanned.js';

export interface ScanInput {
  readonly teamId: string;
  readonly name: string;
  /** `starting` (default) for a scan about to run, `queued` for one waiting for a worker, `uploaded` for an import. */
  readonly status?: 'queued' | 'starting' | 'uploaded';
  readonly targets?: readonly string[];
  readonly templates?: readonly TemplateRef[];
  readonly assetIds?: readonly string[];
  /** Run by a worker (`is_cloud`) rather than by the CLI (`is_oss`). */
  readonly isCloud?: boolean;
  /** Template × target executions planned; defaults to targets × templates. */
  readonly totalScan?: number;
  /** The scan this one re-runs (`--rescan`). */
  readonly rescanOf?: string | undefined;
  /** A queued scan's chunks: the runs of its targets that workers take one at a time. */
  readonly chunks?: readonly ChunkInput[];
  /** The secret-file entries a queued scan was planned with: a worker lacking one does not run it. */
  readonly plannedEntries?: readonly AuthEntry[] | undefined;
}

/** Fields `sort_asc`/`sort_desc` accept, and the columns each orders by. */
export const SCAN_SORT_FIELDS = {
  created_at: ['created_at'],
  updated_at: ['updated_at'],
  completed_at: ['completed_at'],
  name: ['name_folded'],
  status: ['status'],
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
} as const satisfies Record<string, readonly (keyof ScanTable)[]>;
export type ScanSortField = keyof typeof SCAN_SORT_FIELDS;

export interface ScanQuery extends PageQuery {
  readonly statuses?: readonly ScanStatus[] | undefined;
  readonly search?: string | undefined;
  /** Applied in order, before the default newest-first order that keeps pages stable. */
  readonly sort?: readonly { readonly field: ScanSortField; readonly direction: 'asc' | 'desc' }[];
}

const LIVE: readonly ScanStatus[] = ['queued', 'starting', 'running'];

/** A search's matches kept at most (see `Scans.keptMatches`): 5,000 ids, about 150 KB. */
const MATCHES_KEPT = 5_000;

export class Scans {
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  /** The API's listings read through `reads` (see `Connection.reads`). */
  private get reads(): Kysely<Database> {
    return this.conn.reads;
  }

  async create(input: ScanInput): Promise<Scan> {
    const now = Date.now();
    const status = input.status ?? 'starting';
    const targets = input.targets ?? [];
    const templates = input.templates ?? [];
    const id = newId();
    await writeTransaction(this.conn, async (db) => {
      await db
        .insertInto('scan')
        .values({
          id,
          team_id: input.teamId,
          name: input.name,
          name_folded: fold(input.name),
          status,
          progress: status === 'uploaded' ? 100 : 0,
          failure_reason: '',
          created_at: now,
          updated_at: now,
          started_at: null,
          completed_at: status === 'uploaded' ? now : null,
          elapsed_ms: null,
          total_target: targets.length,
          total_template: templates.length,
          total_scan: input.totalScan ?? targets.length * templates.length,
          severity_critical: 0,
          severity_high: 0,
          severity_medium: 0,
          severity_low: 0,
          severity_info: 0,
          severity_unknown: 0,
          is_oss: input.isCloud === true ? 0 : 1,
          is_cloud: input.isCloud === true ? 1 : 0,
          scan_frequency: 'once',
          schedule_last_run: null,
          is_rescan: 0,
          rescan_of: null,
          rescan_count: 0,
        })
        .execute();
      await countRow(db, 'scan_bucket', input.teamId, now);
      await insertTargets(db, id, targets, 0);
      await insertTemplates(db, id, templates, 0);
      for (const assetId of new Set(input.assetIds ?? [])) {
        await db.insertInto('scan_asset').values({ scan_id: id, asset_id: assetId }).execute();
      }
      if (templates.length > 0 || (input.assetIds ?? []).length > 0)
        await keepScanLists(db, this.conn.engine, id);
      if (input.rescanOf !== undefined) await linkRescan(db, id, input.rescanOf, input.teamId);
      if (input.chunks !== undefined) await insertChunks(db, id, input.chunks, now);
      if (input.plannedEntries !== undefined) await insertPlannedEntries(db, id, input.plannedEntries);
    });
    return this.require(id);
  }

  /** `queued`/`starting` → `running`; the elapsed time counts from here. */
  async markRunning(scanId: string): Promise<void> {
    const now = Date.now();
    await this.transition(scanId, ['queued', 'starting'], 'mark running', {
      status: 'running',
      started_at: now,
      updated_at: now,
    });
  }

  /** Live progress of a queued, starting or running scan; progress is clamped to 0–100. */
  async updateProgress(scanId: string, update: { progress?: number; totalScan?: number }): Promise<void> {
    const set: Updateable<ScanTable> = { updated_at: Date.now() };
    if (update.progress !== undefined) set.progress = Math.min(100, Math.max(0, Math.round(update.progress)));
    if (update.totalScan !== undefined) set.total_scan = Math.max(0, Math.round(update.totalScan));
    await this.transition(scanId, LIVE, 'update the progress of', set);
  }

  /** `starting`/`running` → `finished`, progress 100. */
  async finish(scanId: string): Promise<void> {
    const now = Date.now();
    await this.transition(scanId, ['starting', 'running'], 'finish', {
      status: 'finished',
      progress: 100,
      completed_at: now,
      updated_at: now,
      elapsed_ms: sql<number>`${now} - coalesce(started_at, created_at)` as never,
    });
  }

  /** An import's scan, `starting` while its file is read → `uploaded`, complete, progress 100. */
  async completeImport(scanId: string): Promise<void> {
    const now = Date.now();
    await this.transition(scanId, ['starting'], 'complete the import of', {
      status: 'uploaded',
      progress: 100,
      completed_at: now,
      updated_at: now,
    });
  }

  /** Deletes a scan that is not live, with everything recorded for it (see {@link deleteScan}). */
  async delete(scanId: string, teamId: string): Promise<void> {
    await deleteScan(this.conn, scanId, teamId);
  }

  /** Any live state → `failed`, with the reason users will see. */
  async fail(scanId: string, reason: string): Promise<void> {
    const now = Date.now();
    await this.transition(scanId, LIVE, 'fail', {
      status: 'failed',
      failure_reason: reason,
      completed_at: now,
      updated_at: now,
      elapsed_ms: sql<number>`${now} - coalesce(started_at, created_at)` as never,
    });
  }

  /**
   * `failed` → `running` again, for `-resume`: the reason and the completion are cleared; the
   * elapsed time still counts from the first start.
   */
  async resume(scanId: string): Promise<void> {
    await this.transition(scanId, ['failed'], 'resume', {
      status: 'running',
      failure_reason: '',
      completed_at: null,
      updated_at: Date.now(),
    });
  }

  /** Marks `scanId` as a rescan of `originalId` (`is_rescan`) and counts it on the original. */
  async markRescan(scanId: string, originalId: string): Promise<void> {
    const scan = await this.require(scanId);
    await writeTransaction(this.conn, (db) => linkRescan(db, scanId, originalId, scan.teamId));
  }

  /** Adds templates a scan ran that it did not declare up front (imports); known ids are kept. */
  async addTemplates(scanId: string, templates: readonly TemplateRef[]): Promise<void> {
    if (templates.length === 0) return;
    await writeTransaction(this.conn, async (db) => {
      const existing = await db
        .selectFrom('scan_template')
        .select(['template_id', 'position'])
        .where('scan_id', '=', scanId)
        .execute();
      const known = new Set(existing.map((r) => r.template_id));
      const fresh = uniqueBy(templates, (t) => t.id).filter((t) => !known.has(t.id));
      await insertTemplates(db, scanId, fresh, existing.length);
      if (fresh.length > 0) await keepScanLists(db, this.conn.engine, scanId);
      await db
        .updateTable('scan')
        .set({ total_template: existing.length + fresh.length, updated_at: Date.now() })
        .where('id', '=', scanId)
        .execute();
    });
  }

  /** Adds targets a scan covered that it did not declare up front (imports); known ones are kept. */
  async addTargets(scanId: string, targets: readonly string[]): Promise<void> {
    if (targets.length === 0) return;
    await writeTransaction(this.conn, async (db) => {
      const existing = await db
        .selectFrom('scan_target')
        .select('target')
        .where('scan_id', '=', scanId)
        .execute();
      const known = new Set(existing.map((r) => r.target));
      const fresh = [...new Set(targets)].filter((t) => !known.has(t));
      await insertTargets(db, scanId, fresh, existing.length);
      await db
        .updateTable('scan')
        .set({ total_target: existing.length + fresh.length, updated_at: Date.now() })
        .where('id', '=', scanId)
        .execute();
    });
  }

  /** Sets fields an import derives from its events (elapsed time, executions). */
  async setImportSummary(scanId: string, summary: { elapsedMs: number; totalScan: number }): Promise<void> {
    await this.db
      .updateTable('scan')
      .set({ elapsed_ms: summary.elapsedMs, total_scan: summary.totalScan, updated_at: Date.now() })
      .where('id', '=', scanId)
      .execute();
  }

  /** The scan, if it exists and (when `teamId` is given) belongs to that team. */
  async get(scanId: string, teamId?: string): Promise<Scan | undefined> {
    let query = this.withLists().where('id', '=', scanId);
    if (teamId !== undefined) query = query.where('team_id', '=', teamId);
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : scanOf(row, Date.now());
  }

  /**
   * Whether the team has the scan: a listing's check (a scan's findings), read on the listings'
   * connections and planned once, without the scan's row (its lists) that {@link get} reads.
   */
  async ofTeam(scanId: string, teamId: string): Promise<boolean> {
    const row = await this.conn.readsPlannedOnce
      .selectFrom('scan')
      .select('id')
      .where('id', '=', scanId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async require(scanId: string): Promise<Scan> {
    const scan = await this.get(scanId);
    if (scan === undefined) throw new StoreRequestError(`no scan has the id ${scanId}`, 'not_found');
    return scan;
  }

  /**
   * A sort by several fields has no index; its page lies among the first `offset + limit` scans
   * by the first field alone, which its index gives, and their ties. Narrowed to those (the
   * first field at or past the value of the last of them), the sort reads only about as many
   * scans as the page skips, not all the team's.
   */
  private async withinFirstField(
    ids: SelectQueryBuilder<Database, 'scan', { id: string }>,
    query: ScanQuery,
  ): Promise<SelectQueryBuilder<Database, 'scan', { id: string }>> {
    const [first, second] = query.sort ?? [];
    if (first === undefined || second === undefined) return ids;
    const columns: readonly string[] = SCAN_SORT_FIELDS[first.field];
    const column = columns[0] as 'updated_at';
    // A nullable column sorts its nulls apart on each engine; a compound field has no single edge.
    if (columns.length !== 1 || first.field === 'completed_at') return ids;
    const edge = await ids
      .clearSelect()
      .select(sql.ref(column).as('edge'))
      .orderBy(column, first.direction)
      .limit(1)
      .offset(query.offset + query.limit - 1)
      .executeTakeFirst();
    if (edge === undefined) return ids;
    return ids.where(column, first.direction === 'desc' ? '>=' : '<=', (edge as { edge: number }).edge);
  }

  /** The team's scans: newest first (created_at desc, id desc) unless `sort` says otherwise. */
  async list(teamId: string, query: ScanQuery): Promise<Scan[]> {
    const rows = await this.pageRows(teamId, query);
    const now = Date.now();
    return rows === undefined ? [] : (await rows.execute()).map((row) => scanOf(row, now));
  }

  /**
   * The query of a page's scans, each with its lists: what {@link list} runs, and whose plan
   * tests check. Undefined when the page is known to be empty.
   */
  async pageRows(teamId: string, query: ScanQuery) {
    const { ids, onePlan } = await this.pageSelection(teamId, query);
    if (ids === undefined || (Array.isArray(ids) && ids.length === 0)) return undefined;
    // Deferred join: the window is found on the narrow index, then only its rows are read, each
    // with its lists, in the same query (on PostgreSQL a query less to send per page).
    let rows = this.withLists(onePlan ? this.conn.readsPlannedOnce : this.reads).where(
      idAmong(this.conn.engine, ids),
    );
    for (const { field, direction } of query.sort ?? []) {
      for (const column of SCAN_SORT_FIELDS[field]) rows = rows.orderBy(column, direction);
    }
    return rows.orderBy('created_at', 'desc').orderBy('id', 'desc');
  }

  /**
   * A page of the team's scans as the API lists them: the JSON texts of its scans joined by
   * commas, as UTF-8 bytes, in the listing's order (see {@link servedScanJson}), built by SQLite
   * in the query that reads the page (the bytes cross from the read thread, not the rows), and
   * whether any of them is running. `now` gives running scans their elapsed time. PostgreSQL's
   * page is each scan's kept text (migration 0029), or for a scan without one its text written
   * from its row (see `servedScanOf` and served-sql.ts).
   */
  async servedPage(teamId: string, query: ScanQuery, now: number): Promise<{ json: Buffer; live: boolean }> {
    if (this.conn.engine === 'postgres') {
      // Kysely types each column alone: a row has its kept text, or else the columns it is
      // written from (selected as null for a row with the text).
      const rows = (await (
        await this.pageRows(teamId, query)
      )
        ?.clearSelect()
        .select(servedScanColumns(this.reads))
        .execute()) as ServedScanSource[] | undefined;
      if (rows === undefined || rows.length === 0) return { json: bytesOf(null), live: false };
      return {
        json: Buffer.from(rows.map((row) => servedScanOf(row, now)).join(',')),
        live: rows.some((row) => row.status === 'running'),
      };
    }
    const selected = await this.pageIds(teamId, query);
    const ids =
      selected === undefined || Array.isArray(selected)
        ? (selected ?? [])
        : (await selected.execute()).map((row) => row.id);
    if (ids.length === 0) return { json: bytesOf(null), live: false };
    const item = compiledOnce(this.reads, 'scan', servedScanJson);
    const page = await sql<{ json: Uint8Array | null; live: number | null }>`select
        ${utf8(sql`group_concat(${item}, ',' order by page.key)`)} as json,
        max(s.status = 'running') as live
      from ${pageOf(ids)} page join scan s on s.id = page.value,
        (select cast(${now} as integer) as now) clock`.execute(this.reads);
    const row = page.rows[0];
    return { json: bytesOf(row?.json), live: Boolean(row?.live) };
  }

  /**
   * The ids of a listing's page: the query that selects them (what {@link list} runs, and whose
   * plan tests check), a search's ids found already, or undefined when the page is known to be
   * empty (the team has fewer scans than the offset, or no day holds the search's term).
   */
  async pageIds(teamId: string, query: ScanQuery) {
    return (await this.pageSelection(teamId, query)).ids;
  }

  /**
   * {@link pageIds}, and whether the query of the page's rows has one plan whatever its values
   * (so is planned once, see `Connection.readsPlannedOnce`): the plain listing, a search's ids
   * found already, or its walk of spans without a status. Filtered and sorted listings are
   * planned by their values.
   */
  private async pageSelection(teamId: string, query: ScanQuery) {
    const term = query.search ?? '';
    if (term === '') return { ids: await this.listingIds(teamId, query), onePlan: hasOnePlan(query) };
    const kept = (query.sort?.length ?? 0) === 0 ? await this.keptMatches(teamId, query) : undefined;
    if (kept !== undefined)
      return { ids: kept.slice(query.offset, query.offset + query.limit), onePlan: true };
    const reads = { engine: this.conn.engine, db: this.conn.readsPlannedOnce };
    const spans = await searchSpans(reads, teamId, term);
    if (spans?.length === 0) return { ids: undefined, onePlan: true };
    // Sorted by another field, a search's matches are all read and sorted anyway.
    if (spans === undefined || (query.sort?.length ?? 0) > 0) {
      const bounded = spans === undefined ? undefined : { from: spans.at(-1)!.from, to: spans[0]!.to };
      return { ids: await this.listingIds(teamId, query, bounded), onePlan: false };
    }
    if (this.conn.engine === 'postgres') {
      const onePlan = (query.statuses ?? []).length === 0;
      return { ids: this.spansWalked(teamId, query, spans), onePlan };
    }
    return { ids: await this.searchIds(teamId, query, spans), onePlan: true };
  }

  /**
   * Every match of a search (newest first, of its statuses) when at most
   * {@link MATCHES_KEPT}, kept while the store is unchanged from the second time the search is
   * asked for (see `KeptCounts.readWhenAskedAgain`): its pages are then slices of them, read by
   * id. Undefined when not kept, or when more match (a common term, whose walk stops early).
   *
   * A search's pages are read one after another, and the walk reads every name from the newest
   * to the page's last match: for a term a 185th of the names match, the fifth page of 50 walked
   * 46,000 names (43 ms; the first page 4.4 ms, measured), where the kept matches cost one walk.
   * SQLite's walk, page by page, was a tenth of its read threads' time in the mix (measured).
   */
  private async keptMatches(teamId: string, query: ScanQuery): Promise<readonly string[] | undefined> {
    const statuses = query.statuses ?? [];
    const key = `scan_matches ${teamId} ${JSON.stringify([query.search ?? '', [...statuses].sort()])}`;
    const matches = this.conn.keptSearches.readWhenAskedAgain(key, ['scan'], async () => {
      const reads = { engine: this.conn.engine, db: this.conn.readsPlannedOnce };
      const spans = await searchSpans(reads, teamId, query.search ?? '');
      if (spans === undefined) return undefined;
      if (spans.length === 0) return [];
      const all = { ...query, offset: 0, limit: MATCHES_KEPT + 1 };
      const ids =
        this.conn.engine === 'postgres'
          ? (await this.spansWalked(teamId, all, spans).execute()).map((row) => row.id)
          : await this.searchIds(teamId, all, spans);
      return ids.length > MATCHES_KEPT ? undefined : ids;
    });
    return matches === undefined ? undefined : await matches;
  }

  /**
   * PostgreSQL: the ids of a page of a search as one query that walks each span newest first
   * (a lateral subquery per span, in order) for the matches the page needs, comparing names by
   * `strpos`. Left to choose, its planner read a rare term by the trigram index, whose lists
   * for common trigrams (`sca`, `an `: every name) it decodes whole: `scan 99999` took 33 ms
   * that way and 2 ms walking its three spans, and every term of the bench was faster walked
   * (measured). The spans are bound as two arrays: one statement for any number of them.
   */
  private spansWalked(teamId: string, query: ScanQuery, spans: readonly Span[]) {
    const statuses = query.statuses ?? [];
    const wanted = query.offset + query.limit;
    const froms = spans.map((span) => span.from);
    const tos = spans.map((span) => span.to);
    const table = sql<{ since: number; until: number; ord: number }>`(select * from
      unnest(${froms}::bigint[], ${tos}::bigint[]) with ordinality as spans(since, until, ord))`;
    return this.reads
      .selectFrom(table.as('spans'))
      .innerJoinLateral(
        (eb) => {
          let matches = eb
            .selectFrom('scan')
            .select(['id', 'created_at'])
            .where('team_id', '=', teamId)
            .whereRef('created_at', '>=', 'spans.since')
            .whereRef('created_at', '<', 'spans.until')
            .where(nameContains(this.conn.engine, query.search ?? ''));
          if (statuses.length > 0) matches = matches.where('status', 'in', statuses);
          return matches.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(wanted).as('found');
        },
        (join) => join.onTrue(),
      )
      .select('found.id')
      .orderBy('spans.ord')
      .orderBy('found.created_at', 'desc')
      .orderBy('found.id', 'desc')
      .limit(query.limit)
      .offset(query.offset);
  }

  /** The ids of a page of a listing not searched, or searched and sorted (by creation by default). */
  private async listingIds(teamId: string, query: ScanQuery, within?: Span) {
    const statuses = query.statuses ?? [];
    const byCreation = !((query.search ?? '') !== '' || (query.sort?.length ?? 0) > 0);
    // The plain listing has one plan, the newest-first index, so on SQLite its values are kept
    // from the planner (see `unplanned`); filtered and sorted listings are planned by their values.
    const fixedPlan = this.conn.engine === 'sqlite' && hasOnePlan(query);
    const value = <T extends string | number>(v: T) => (fixedPlan ? unplanned(v) : v);
    const deep = byCreation && query.offset >= DEEP_OFFSET;
    const place = deep
      ? await locate(
          {
            engine: this.conn.engine,
            kept: keptCounts(this.conn),
            positions: keptPositions(this.conn),
            db: this.reads,
          },
          teamId,
          query.offset,
          statuses.length > 0 ? { statuses } : { table: 'scan_bucket' },
        )
      : undefined;
    // Past the last scan: an empty page.
    if (deep && place === undefined) return undefined;
    let ids = withPlace(this.reads, place)
      .selectFrom('scan')
      .select('id')
      .where('team_id', '=', value(teamId));
    let offset: number | RawBuilder<number> = query.offset;
    if (place !== undefined) {
      ids = ids.where(
        'created_at',
        '<',
        typeof place.before === 'number' ? value(place.before) : place.before,
      );
      if (place.after !== undefined) ids = ids.where(pastRow(place.after));
      offset = place.skip;
    }
    if (statuses.length > 0) ids = ids.where('status', 'in', statuses);
    if (query.search !== undefined && query.search !== '')
      ids = ids.where(scanNameContains(this.conn.engine, query.search));
    if (within !== undefined)
      ids = ids.where('created_at', '>=', within.from).where('created_at', '<', within.to);
    ids = await this.withinFirstField(ids, query);
    for (const { field, direction } of query.sort ?? []) {
      for (const column of SCAN_SORT_FIELDS[field]) ids = ids.orderBy(column, direction);
    }
    return ids
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(value(query.limit))
      .offset(typeof offset === 'number' ? value(offset) : offset);
  }

  /**
   * The ids of a page of a search, newest first, reading only the spans of days that may hold
   * its term: each span walked newest first for the matches the page still needs, until it has
   * them (the first span usually has them all).
   */
  private async searchIds(teamId: string, query: ScanQuery, spans: readonly Span[]): Promise<string[]> {
    const statuses = query.statuses ?? [];
    const wanted = query.offset + query.limit;
    const found: string[] = [];
    // Every value unplanned, the index named: the walk is prepared once (see `unplanned`).
    const status =
      statuses.length > 0
        ? sql`and status in (select value from json_each(${JSON.stringify(statuses)}))`
        : sql``;
    for (const span of spans) {
      const rows = await sql<{ id: string }>`select id from scan indexed by scan_team_order_covering
        where team_id = ${unplanned(teamId)}
          and created_at >= ${unplanned(span.from)} and created_at < ${unplanned(span.to)} ${status}
          and ${scanNameContains(this.conn.engine, query.search ?? '')}
        order by created_at desc, id desc limit ${unplanned(wanted - found.length)}`.execute(this.reads);
      for (const row of rows.rows) found.push(row.id);
      if (found.length >= wanted) break;
    }
    return found.slice(query.offset, wanted);
  }

  /** The scan's targets, in the order given; with `range`, those from position `first` on, `count` of them. */
  async targets(scanId: string, range?: { first: number; count: number }): Promise<string[]> {
    let query = this.db.selectFrom('scan_target').select('target').where('scan_id', '=', scanId);
    if (range !== undefined)
      query = query.where('position', '>=', range.first).where('position', '<', range.first + range.count);
    const rows = await query.orderBy('position').execute();
    return rows.map((r) => r.target);
  }

  /** The scan's templates with their sources (base64), in the order given. */
  async templates(scanId: string): Promise<ScanTemplate[]> {
    const rows = await this.db
      .selectFrom('scan_template')
      .selectAll()
      .where('scan_id', '=', scanId)
      .orderBy('position')
      .execute();
    const sources = await loadSources(
      this.db,
      rows.map((r) => r.template_hash),
    );
    return rows.map((r) => ({
      id: r.template_id,
      path: r.template_path,
      url: r.template_url,
      encoded: r.template_hash === null ? '' : (sources.get(r.template_hash) ?? ''),
      isPublic: r.is_public === 1,
    }));
  }

  private async transition(
    scanId: string,
    from: readonly ScanStatus[],
    action: string,
    set: Updateable<ScanTable>,
  ): Promise<void> {
    const result = await this.db
      .updateTable('scan')
      .set(set)
      .where('id', '=', scanId)
      .where('status', 'in', from)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return;
    const scan = await this.require(scanId);
    throw new StoreRequestError(`cannot ${action} scan ${scanId}: it is ${scan.status}`, 'conflict');
  }

  /** Scans with their lists, kept on their rows (see scan-lists.ts). */
  private withLists(db = this.db) {
    return db.selectFrom('scan').selectAll();
  }
}

/**
 * Whether a listing's page is found by one plan whatever its values: one index gives its scans
 * in the page's order, so the walk stops after the page. The plain listing (newest first on the
 * (team, created_at, id) index), one status (on the (team, status, created_at, id) index, which
 * finds a status no scan has empty at once) and one sort field (on that field's index). Planned
 * for its values, such a page's statement had cost PostgreSQL more to plan than to run (25
 * indexes on `scan` to weigh; its CPU a sorted page 0.61–0.68 → 0.44–0.50 ms, measured). Several statuses
 * (merged from the status index, or filtered along the newest-first one, as they are common or
 * rare), several sort fields (first narrowed by the first, see `withinFirstField`) and sorted
 * pages of some statuses are planned by their values.
 */
function hasOnePlan(query: ScanQuery): boolean {
  if ((query.search ?? '') !== '') return false;
  const sorts = query.sort?.length ?? 0;
  const statuses = (query.statuses ?? []).length;
  return (sorts === 0 && statuses <= 1) || (sorts === 1 && statuses === 0);
}

function scanOf(row: ScanRow, now: number): Scan {
  return toScan(row, listsOf(row), now);
}

/** The lists kept on a scan's row, as JSON array texts (on PostgreSQL with a space after each comma). */
function listsOf(row: ScanRow): ScanLists {
  return {
    templateIds: JSON.parse(row.listed_template_ids),
    templateUrls: JSON.parse(row.listed_template_urls),
    publicTemplates: JSON.parse(row.listed_public_templates),
    assetIds: JSON.parse(row.listed_asset_ids),
  };
}

type ScanRow = Selectable<ScanTable>;

interface ScanLists {
  templateIds: string[];
  templateUrls: string[];
  publicTemplates: string[];
  assetIds: string[];
}

function toScan(
  row: ScanRow,
  lists: Pick<Scan, 'templateIds' | 'templateUrls' | 'publicTemplates' | 'assetIds'>,
  now: number,
): Scan {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    status: row.status as ScanStatus,
    progress: row.progress,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    elapsedMs: scanElapsedMs(row, now),
    totalTarget: row.total_target,
    totalTemplate: row.total_template,
    totalScan: row.total_scan,
    severity: severityCounts(row),
    isOss: row.is_oss === 1,
    isCloud: row.is_cloud === 1,
    scanFrequency: row.scan_frequency,
    scheduleLastRun: row.schedule_last_run,
    isRescan: row.is_rescan === 1,
    rescanOf: row.rescan_of,
    rescanCount: row.rescan_count,
    ...lists,
  };
}

function severityCounts(row: ScanRow): SeverityCounts {
  const counts = {} as Record<Severity, number>;
  for (const severity of SEVERITIES) counts[severity] = row[`severity_${severity}`];
  return counts;
}

async function insertTargets(
  db: Kysely<Database>,
  scanId: string,
  targets: readonly string[],
  start: number,
) {
  let position = start;
  for (const part of chunks(targets, 500)) {
    await db
      .insertInto('scan_target')
      .values(part.map((target) => ({ scan_id: scanId, position: position++, target })))
      .execute();
  }
}

async function insertTemplates(
  db: Kysely<Database>,
  scanId: string,
  templates: readonly TemplateRef[],
  start: number,
) {
  const unique = uniqueBy(templates, (t) => t.id);
  let position = start;
  for (const part of chunks(unique, 200)) {
    const hashes = await storeSources(db, part.map(encodedOf));
    await db
      .insertInto('scan_template')
      .values(
        part.map((t, i) => ({
          scan_id: scanId,
          position: position++,
          template_id: t.id,
          template_path: t.path ?? '',
          template_url: t.url ?? '',
          template_hash: hashes[i] ?? null,
          is_public: t.isPublic === true ? (1 as const) : (0 as const),
        })),
      )
      .execute();
  }
}

async function linkRescan(db: Kysely<Database>, scanId: string, originalId: string, teamId: string) {
  if (scanId === originalId) throw new StoreRequestError('a scan cannot be a rescan of itself', 'invalid');
  const original = await db
    .selectFrom('scan')
    .select('id')
    .where('id', '=', originalId)
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  if (original === undefined) throw new StoreRequestError(`no scan has the id ${originalId}`, 'not_found');
  const marked = await db
    .updateTable('scan')
    .set({ is_rescan: 1, rescan_of: originalId, updated_at: Date.now() })
    .where('id', '=', scanId)
    .where('rescan_of', 'is', null)
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) === 0) return;
  await db
    .updateTable('scan')
    .set((eb) => ({ rescan_count: eb('rescan_count', '+', 1), updated_at: Date.now() }))
    .where('id', '=', originalId)
    .execute();
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
