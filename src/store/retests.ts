import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { ResultEvent } from '../event/index.js';
import { countRow, DEEP_OFFSET, locate, pastRow, withPlace } from './buckets.js';
import { type Connection, keptCounts, keptPositions } from './connect.js';
import { StoreRequestError } from './errors.js';
import { newId } from './id.js';
import type { PageQuery, ResultType, RetestResult, ServedRetest, TemplateRef, VulnStatus } from './model.js';
import { idAmong } from './page-rows.js';
import type { Database, RetestTable } from './schema.js';
import { servedEventsJson, servedRetestFields, servedRetestItems } from './served-event.js';
import {
  compiledOnce,
  formatted,
  jsonFlag,
  jsonString,
  jsonTemplateText,
  jsonTimestamp,
  writtenItems,
} from './served-sql.js';
import { encodedOf, loadSources, storeSources } from './templates.js';
import { writeTransaction } from './tx.js';
import { unplannedOn } from './unplanned.js';

export interface RetestInput {
  readonly vulnId: string;
  readonly resultType: ResultType;
  /** The events of the re-run (with matcher-status, matched or not); may be empty on error. */
  readonly events: readonly ResultEvent[];
  /** The template as re-run, when it differs from the one that found the vulnerability. */
  readonly template?: TemplateRef;
}

/** The statuses a retest may move a finding between; every other one is a person's triage. */
export const RETEST_STATUSES = ['open', 'fixed'] as const satisfies readonly VulnStatus[];

/** True when the status is a person's decision (false_positive, triaged, …) that a retest keeps. */
export function isTriagedByHand(status: VulnStatus): boolean {
  return !(RETEST_STATUSES as readonly VulnStatus[]).includes(status);
}

/**
 * How a retest moves the finding: reproduced → open, not reproduced → fixed, error → unchanged. A
 * status set by hand is never changed.
 */
export function statusAfterRetest(resultType: ResultType, current: VulnStatus): VulnStatus {
  if (isTriagedByHand(current) || resultType === 'error') return current;
  return resultType === 'matched' ? 'open' : 'fixed';
}

export class Retests {
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  /** The API's listings read through `reads` (see `Connection.reads`). */
  private get reads(): Kysely<Database> {
    return this.conn.reads;
  }

  /** A page's query has one plan whatever the page (see {@link pageIds}): planned once. */
  private get pages(): Kysely<Database> {
    return this.conn.readsPlannedOnce;
  }

  /** Records a retest of a finding and moves the finding's status (see {@link statusAfterRetest}), in one transaction. */
  async record(input: RetestInput): Promise<RetestResult> {
    const id = newId();
    await writeTransaction(this.conn, async (db) => {
      const read = db.selectFrom('finding').selectAll().where('id', '=', input.vulnId);
      // Locked on PostgreSQL (SQLite's write transaction already excludes other writers), so a
      // triage set while the retest is recorded is not overwritten with the status read here.
      const finding = await (this.conn.engine === 'postgres' ? read.forUpdate() : read).executeTakeFirst();
      if (finding === undefined)
        throw new StoreRequestError(`no finding has the vuln id ${input.vulnId}`, 'not_found');
      const now = Date.now();
      const status = statusAfterRetest(input.resultType, finding.vuln_status as VulnStatus);
      const template = input.template;
      const templateHash =
        template === undefined
          ? finding.template_hash
          : ((await storeSources(db, [encodedOf(template)]))[0] ?? null);
      await db
        .insertInto('retest')
        .values({
          id,
          team_id: finding.team_id,
          finding_id: finding.id,
          scan_id: finding.scan_id,
          target: finding.target,
          template_id: template?.id ?? finding.template_id,
          template_path: template?.path ?? finding.template_path,
          template_url: template?.url ?? finding.template_url,
          template_hash: templateHash,
          matcher_status: input.resultType === 'matched' ? 1 : 0,
          result_type: input.resultType,
          vuln_status: status,
          events: JSON.stringify(input.events),
          served_fields: servedRetestFields({
            matcherStatus: input.resultType === 'matched',
            vulnId: finding.id,
            target: finding.target,
            templateUrl: template?.url ?? finding.template_url,
            createdAt: now,
            updatedAt: now,
            scanId: finding.scan_id,
            eventsJson: servedEventsJson(input.events),
            templateId: template?.id ?? finding.template_id,
            templatePath: template?.path ?? finding.template_path,
          }),
          created_at: now,
          updated_at: now,
        })
        .execute();
      await countRow(db, 'retest_bucket', finding.team_id, now);
      if (status !== finding.vuln_status) {
        await db
          .updateTable('finding')
          .set({ vuln_status: status, updated_at: now })
          .where('id', '=', finding.id)
          .execute();
      }
    });
    const row = await this.db.selectFrom('retest').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const [result] = await this.withSources([row]);
    return result!;
  }

  /**
   * The query of a page's results: what {@link list} runs, and whose plan tests check.
   *
   * On PostgreSQL the page's first row is found on the narrow index (the skipped entries' rows
   * are never read), and the page is read on from it along the same index, its rows in one walk.
   * Reading the page's ids first and then each row by its key had cost a descent of the primary
   * key's index a row: PostgreSQL's CPU for a page of 50, 0.36–0.42 → 0.26–0.27 ms (measured,
   * BENCHMARKS.md). SQLite reads the ids, then the rows by id.
   */
  async pageRows(teamId: string, query: PageQuery) {
    const rows = this.pages.selectFrom('retest').selectAll();
    if (this.conn.engine === 'postgres') {
      const first = (await this.pageIds(teamId, { ...query, limit: 1 }))
        .clearSelect()
        .select(['created_at', 'id']);
      // Past the last row the first row is null, and no row compares with it.
      return rows
        .where('team_id', '=', teamId)
        .where(sql<SqlBool>`(created_at, id) <= ${first}`)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit);
    }
    return rows
      .where(idAmong(this.conn.engine, await this.pageIds(teamId, query)))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc');
  }

  /** The team's retest results, newest first (created_at desc, id desc). */
  async list(teamId: string, query: PageQuery): Promise<RetestResult[]> {
    const rows = await (await this.pageRows(teamId, query)).execute();
    return this.withSources(rows, this.reads);
  }

  /**
   * The same page as {@link list}, as the API serves it: each result's members up to its template
   * as kept with it since migration 0024 (see `servedRetestFields`), written from its columns for
   * results recorded before.
   */
  async served(teamId: string, query: PageQuery): Promise<ServedRetest[]> {
    const rows = await (await this.pageRows(teamId, query))
      .clearSelect()
      .select([
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
        'served_fields',
        'created_at',
        'updated_at',
      ])
      // The older forms of the events are read only for results that have no served fields.
      .select(sql<string | null>`case when served_fields is null then served_events end`.as('served_events'))
      .select(
        sql<string | null>`case when served_fields is null and served_events is null then events end`.as(
          'events',
        ),
      )
      .execute();
    const sources = await loadSources(
      this.reads,
      rows.map((r) => r.template_hash),
    );
    return rows.map((row) => servedOf(row, row.served_fields ?? retestFieldsOf(row), sources));
  }

  /**
   * The same page as {@link served}, as the API lists it: the results' JSON texts joined by
   * commas, as UTF-8 bytes, newest first; undefined when a result on the page has no served
   * fields (recorded before migration 0024) on PostgreSQL, or no served form at all (recorded
   * before 0006) on SQLite: {@link served} makes them.
   *
   * SQLite writes the page in the query that reads it (see served-sql.ts): each result's served
   * fields and its template's text from `template_source`, or for a result recorded from 0006 to
   * 0023 its columns and served events. PostgreSQL answers each result's served fields, template
   * hash and the two members after the template, joined here: four columns a row to decode, where
   * it had sent sixteen for the API to serialise (half the API's CPU per page, measured).
   */
  async servedPage(teamId: string, query: PageQuery): Promise<Buffer | undefined> {
    if (this.conn.engine === 'postgres') {
      const rows = await (await this.pageRows(teamId, query))
        .clearSelect()
        .select(['served_fields', 'template_hash', 'result_type', 'vuln_status'])
        .execute();
      if (!rows.every(hasServedFields)) return undefined;
      const sources = await loadSources(
        this.reads,
        rows.map((r) => r.template_hash),
      );
      return Buffer.from(servedRetestItems(rows.map((row) => servedOf(row, row.served_fields, sources))));
    }
    const ids = (await (await this.pageIds(teamId, query)).execute()).map((row) => row.id);
    const item = compiledOnce(this.reads, 'retest', servedRetestJson);
    return writtenItems(this.reads, ids, {
      table: 'retest',
      alias: 'r',
      served: sql`coalesce(r.served_fields, r.served_events)`,
      item,
    });
  }

  /**
   * The query of the ids of a page, found on the (team, created_at, id) index alone: what
   * {@link list} runs, and whose plan tests check.
   */
  async pageIds(teamId: string, query: PageQuery) {
    // One plan, so on SQLite the values are kept from the planner (see `unplanned`).
    const engine = this.conn.engine;
    const deep = query.offset >= DEEP_OFFSET;
    const place = deep
      ? await locate(
          { engine, kept: keptCounts(this.conn), positions: keptPositions(this.conn), db: this.reads },
          teamId,
          query.offset,
          { table: 'retest_bucket' },
        )
      : undefined;
    const ids = withPlace(this.reads, place)
      .selectFrom('retest')
      .select('id')
      .where('team_id', '=', unplannedOn(engine, teamId))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(unplannedOn(engine, query.limit));
    if (!deep) return ids.offset(unplannedOn(engine, query.offset));
    // Past the last row: an empty page.
    if (place === undefined) return ids.where(sql<boolean>`1 = 0`);
    const { before, skip, after } = place;
    const placed = ids.where(
      'created_at',
      '<',
      typeof before === 'number' ? unplannedOn(engine, before) : before,
    );
    return (after === undefined ? placed : placed.where(pastRow(after))).offset(
      typeof skip === 'number' ? unplannedOn(engine, skip) : skip,
    );
  }

  /** The retests of one finding, newest first. */
  async ofFinding(vulnId: string): Promise<RetestResult[]> {
    const rows = await this.db
      .selectFrom('retest')
      .selectAll()
      .where('finding_id', '=', vulnId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return this.withSources(rows);
  }

  private async withSources(rows: readonly RetestTable[], db = this.db): Promise<RetestResult[]> {
    const sources = await loadSources(
      db,
      rows.map((r) => r.template_hash),
    );
    return rows.map((row) => ({
      ...resultOf(row, sources),
      events: JSON.parse(row.events) as ResultEvent[],
    }));
  }
}

type ResultColumns = Omit<RetestTable, 'events' | 'served_events' | 'served_fields'>;

function resultOf(row: ResultColumns, sources: ReadonlyMap<string, string>): Omit<RetestResult, 'events'> {
  return {
    id: row.id,
    teamId: row.team_id,
    vulnId: row.finding_id,
    scanId: row.scan_id,
    target: row.target,
    templateId: row.template_id,
    templatePath: row.template_path,
    templateUrl: row.template_url,
    templateEncoded: row.template_hash === null ? '' : (sources.get(row.template_hash) ?? ''),
    matcherStatus: row.matcher_status === 1,
    resultType: row.result_type as ResultType,
    vulnStatus: row.vuln_status as VulnStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function hasServedFields<T extends { served_fields: string | null }>(
  row: T,
): row is T & { served_fields: string } {
  return row.served_fields !== null;
}

function servedOf(
  row: Pick<RetestTable, 'template_hash' | 'result_type' | 'vuln_status'>,
  fields: string,
  sources: ReadonlyMap<string, string>,
): ServedRetest {
  return {
    fields,
    templateEncoded: row.template_hash === null ? '' : (sources.get(row.template_hash) ?? ''),
    resultType: row.result_type as ResultType,
    vulnStatus: row.vuln_status as VulnStatus,
  };
}

/** The columns a result's served fields are written from when it has none kept. */
export type RetestFieldColumns = Pick<
  RetestTable,
  | 'finding_id'
  | 'scan_id'
  | 'target'
  | 'template_id'
  | 'template_path'
  | 'template_url'
  | 'matcher_status'
  | 'created_at'
  | 'updated_at'
  | 'served_events'
> & { readonly events: string | null };

/**
 * The served fields of a result recorded before migration 0024, written from its columns: its
 * served events (0006 to 0023), or before them its raw events.
 */
export function retestFieldsOf(row: RetestFieldColumns): string {
  return servedRetestFields({
    matcherStatus: row.matcher_status === 1,
    vulnId: row.finding_id,
    target: row.target,
    templateUrl: row.template_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    scanId: row.scan_id,
    eventsJson: row.served_events ?? servedEventsJson(JSON.parse(row.events ?? '[]') as ResultEvent[]),
    templateId: row.template_id,
    templatePath: row.template_path,
  });
}

/**
 * A retest result as the API lists it, as JSON text written by SQLite (see
 * `Retests.servedPage`), reading the result as `r`: its served fields, template and the members
 * after it, or for a result recorded from migration 0006 to 0023, every member from its columns
 * and served events.
 */
function servedRetestJson(): RawBuilder<string> {
  const text = (column: keyof RetestTable) => jsonString(sql.ref(`r.${column}`));
  return formatted([
    '{',
    sql`case when r.served_fields is null then ${fieldsFromColumns(text)} else r.served_fields end`,
    ',"template_encoded":',
    jsonTemplateText('r'),
    ',"result_type":',
    text('result_type'),
    ',"vuln_status":',
    text('vuln_status'),
    '}',
  ]);
}

/** What `servedRetestFields` writes, written by SQLite from the columns and served events of `r`. */
function fieldsFromColumns(text: (column: keyof RetestTable) => RawBuilder<string>): RawBuilder<string> {
  return formatted([
    '"matcher_status":',
    jsonFlag(sql.ref('r.matcher_status')),
    ',"vuln_id":',
    text('finding_id'),
    ',"target":',
    text('target'),
    ',"template_url":',
    text('template_url'),
    ',"created_at":',
    jsonTimestamp(sql.ref('r.created_at')),
    ',"updated_at":',
    jsonTimestamp(sql.ref('r.updated_at')),
    ',"scan_id":',
    text('scan_id'),
    ',"event":',
    sql.ref('r.served_events'),
    ',"template_id":',
    text('template_id'),
    ',"template_path":',
    text('template_path'),
  ]);
}
