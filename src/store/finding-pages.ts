import { type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { ResultEvent, Severity } from '../event/index.js';
import type { Connection } from './connect.js';
import { findingColumnsOf, findingsOf } from './findings.js';
import { leastIdAt } from './id.js';
import type { Engine } from './location.js';
import type { Finding, VulnStatus } from './model.js';
import { idAmong } from './page-rows.js';
import { POSITION_STRIDE, resumeAt } from './positions.js';
import type { Database, FindingTable } from './schema.js';
import {
  type FindingHeadSource,
  servedFindingFields,
  servedFindingHead,
  servedFindingItems,
} from './served-event.js';
import {
  compiledOnce,
  formatted,
  jsonString,
  jsonTemplateText,
  jsonTimestamp,
  writtenItems,
} from './served-sql.js';
import { loadSources } from './templates.js';
import type { EpochMs } from './time.js';
import { unplanned } from './unplanned.js';

/** Which of a team's findings a page lists; every field narrows, none widens past the team. */
export interface TeamFindingFilter {
  /** Only this scan's findings. */
  readonly scanId?: string | undefined;
  readonly severities?: readonly Severity[] | undefined;
  readonly statuses?: readonly VulnStatus[] | undefined;
  /** Case-insensitive (ASCII letters) literal substring of the target or the template id. */
  readonly search?: string | undefined;
  /** Recorded at or after this instant. */
  readonly since?: EpochMs | undefined;
}

export interface TeamFindingPage {
  readonly findings: Finding[];
  /** How many findings the filter matches in all. */
  readonly total: number;
}

/** A finding as a page serves it: its fields, and those from its event as JSON text. */
export interface ServedFinding extends Omit<Finding, 'event'> {
  /** See `servedFindingFields`. */
  readonly servedFields: string;
}

export interface ServedFindingPage {
  readonly findings: ServedFinding[];
  readonly total: number;
}

/** A page of findings as the API lists it, its items written once (see `FindingPages.servedPage`). */
export interface WrittenFindingPage {
  /** The findings' JSON texts joined by commas, as UTF-8 bytes, newest first. */
  readonly items: Buffer;
  /** How many findings the page holds. */
  readonly count: number;
  /** How many findings the filter matches in all. */
  readonly total: number;
}

/**
 * Up to this many findings matching a search, they are read by their targets and templates
 * (`finding_search_candidates`, migration 0018) and sorted; past it the matches are common enough that walking the
 * team's newest-first index meets a page of them sooner.
 */
export const SEARCH_CANDIDATES = 5_000;

/** An id bucket: the first characters of a vuln id (an xid), 2^17 s of its time (`finding_bucket`). */
const BUCKET_CHARS = 3;

/**
 * How long after a finding's `created_at` its id may be made, at most: they are taken within one
 * synchronous step of recording a batch (findings.ts), so milliseconds; a minute is the margin.
 */
const SINCE_LAG_MS = 60_000;

/** The tables whose changes move the findings' kept counts, positions and tallies (their counts' tables are written by `finding`'s triggers). */
const FINDINGS = ['finding'];

/** What the kept counts tell of a page before it is read (see `FindingPages.counts`). */
interface Counted {
  readonly total: number;
  /**
   * A search's matches, when at most {@link SEARCH_CANDIDATES}: each has one of these targets
   * and one of these templates.
   */
  readonly candidates?: { readonly targets: string[]; readonly templates: string[] } | undefined;
  /** The id buckets of a page of a filter by severity and status (see `FindingPages.place`). */
  readonly place?:
    | {
        readonly first: string;
        readonly skip: number;
        readonly last: string;
        /** From the first bucket's kept positions (see positions.ts): the page starts below this id. */
        readonly after?: string;
      }
    | undefined;
}

const SEVERITY_COLUMNS = {
  critical: 'severity_critical',
  high: 'severity_high',
  medium: 'severity_medium',
  low: 'severity_low',
  info: 'severity_info',
  unknown: 'severity_unknown',
} as const satisfies Record<Severity, string>;

/**
 * Pages of a team's findings as integrations list them (`/v1/scans/results`,
 * `/v1/scans/result/{scan_id}`): newest first by vuln id (an xid, which sorts by the second the
 * finding was recorded), read in the order of `finding_team_order` or `finding_scan_order` so the
 * walk stops after the page.
 */
export class FindingPages {
  constructor(
    private readonly conn: Connection,
    /** See {@link SEARCH_CANDIDATES}; tests lower it to walk every search. */
    private readonly searchCandidates = SEARCH_CANDIDATES,
  ) {}

  /** Every query here is a listing's read (see `Connection.reads`). */
  private get db(): Kysely<Database> {
    return this.conn.reads;
  }

  /**
   * Where a page's query runs: a filter the id buckets place (the team's findings, by severity
   * and status) is one range of the team's index whatever the page, so planned once; a search's
   * or a scan's pages are planned for their values.
   */
  private pagesOf(filter: TeamFindingFilter): Kysely<Database> {
    return countedByBucket(filter) ? this.conn.readsPlannedOnce : this.db;
  }

  /** The query of a page's findings: what {@link list} runs, and whose plan tests check. */
  async pageRows(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
    counted?: Counted,
  ) {
    const pages = this.pagesOf(filter);
    if (this.conn.engine === 'postgres' && countedByBucket(filter)) {
      // The page's first finding is found on the team's index (the skipped entries' rows are never
      // read), and the page read on from it along the same index, which holds the severity and
      // status the filter checks: its rows in one walk rather than a descent of the primary key's
      // index each (see `Retests.pageRows`). Past the last match the first is null, and no id
      // compares with it.
      const first = await this.pageIds(teamId, filter, { ...window, limit: 1 }, counted);
      return this.matching(teamId, filter, pages)
        .selectAll()
        .where(sql<SqlBool>`id <= ${first}`)
        .orderBy('id', 'desc')
        .limit(window.limit);
    }
    const ids = await this.pageIds(teamId, filter, window, counted);
    return pages
      .selectFrom('finding')
      .selectAll()
      .where(idAmong(this.conn.engine, ids))
      .orderBy('id', 'desc');
  }

  async list(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
  ): Promise<TeamFindingPage> {
    // Deferred join: the window is found on the narrow index (the skipped entries' events, the
    // bulk of a row, are never read), then only its rows are.
    const counted = await this.counts(teamId, filter, window);
    const rows = await (await this.pageRows(teamId, filter, window, counted)).execute();
    return {
      findings: await findingsOf(this.db, rows),
      total: counted?.total ?? (await this.count(teamId, filter)),
    };
  }

  /**
   * {@link list} as the API serves it: each finding's event fields as stored JSON text, never
   * parsed (only rows recorded before migration 0016 have their event read and served now).
   */
  async served(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
  ): Promise<ServedFindingPage> {
    const counted = await this.counts(teamId, filter, window);
    const rows = await (await this.pageRows(teamId, filter, window, counted))
      .clearSelect()
      .select([
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
        'created_at',
        'updated_at',
      ])
      .select(sql<string | null>`case when served_fields is null then event end`.as('event'))
      .execute();
    const sources = await loadSources(
      this.db,
      rows.map((r) => r.template_hash),
    );
    const findings = rows.map((row) => ({
      ...findingColumnsOf(row, sources),
      servedFields: row.served_fields ?? servedFindingFields(JSON.parse(row.event ?? '{}') as ResultEvent),
    }));
    return { findings, total: counted?.total ?? (await this.count(teamId, filter)) };
  }

  /**
   * {@link served}'s page as the API lists it: each finding's fields in the order of
   * `resultsPageText`, its stored event fields spliced in, its template's text from
   * `template_source`. Written by SQLite in the query that reads the page (see served-sql.ts); on
   * PostgreSQL joined from each finding's kept texts (see {@link headedPage}). Undefined on SQLite
   * when a finding on the page was recorded before migration 0016 (no served fields): {@link
   * served} makes them.
   */
  async servedPage(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
  ): Promise<WrittenFindingPage | undefined> {
    const counted = await this.counts(teamId, filter, window);
    if (this.conn.engine === 'postgres') return this.headedPage(teamId, filter, window, counted);
    const selected = await this.pageIds(teamId, filter, window, counted);
    const ids = (await selected.execute()).map((row) => row.id);
    const total = counted?.total ?? (await this.count(teamId, filter));
    const item = compiledOnce(this.db, 'finding', servedFindingJson);
    const items = await writtenItems(this.db, ids, {
      table: 'finding',
      alias: 'f',
      served: 'served_fields',
      item,
    });
    return items === undefined ? undefined : { items, count: ids.length, total };
  }

  /**
   * {@link servedPage} on PostgreSQL: each finding's served head and fields, update time, template
   * hash and status (five columns, where {@link served} reads fourteen to decode and serialise),
   * joined by `servedFindingItems`. A finding recorded before migration 0026 (no served head)
   * is sent its columns instead, and one recorded before 0016 (no served fields) its event, in
   * the same statement (null for every other finding), and its texts are written from them.
   */
  private async headedPage(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
    counted: Counted | undefined,
  ): Promise<WrittenFindingPage> {
    // Named apart from the columns: the page's order is by `id`, which an output named so would take.
    const unheaded = (column: HeadColumn) =>
      sql<string | number | null>`case when served_head is null then ${sql.ref(column)} end`.as(
        `head_${column}` as const,
      );
    const rows = await (await this.pageRows(teamId, filter, window, counted))
      .clearSelect()
      .select(['served_head', 'served_fields', 'updated_at', 'template_hash', 'vuln_status'])
      .select(HEAD_COLUMNS.map(unheaded))
      .select(sql<string | null>`case when served_fields is null then event end`.as('event'))
      .execute();
    const sources = await loadSources(
      this.db,
      rows.map((row) => row.template_hash),
    );
    const items = servedFindingItems(
      rows.map((row) => ({
        head: row.served_head ?? servedFindingHead(headSourceOf(row)),
        fields: row.served_fields ?? servedFindingFields(JSON.parse(row.event ?? '{}') as ResultEvent),
        updatedAt: row.updated_at,
        templateEncoded: row.template_hash === null ? '' : (sources.get(row.template_hash) ?? ''),
        vulnStatus: row.vuln_status,
      })),
    );
    const total = counted?.total ?? (await this.count(teamId, filter));
    return { items: Buffer.from(items), count: rows.length, total };
  }

  /**
   * The query of the ids of a page, newest first: what {@link list} runs, and whose plan tests
   * check. A page of the team's findings, unfiltered or by severity and status, reads only the
   * id buckets that hold its rows (found through `finding_bucket`, see {@link place}) and skips
   * only within the first, so its cost grows neither with the offset nor with how few findings
   * the filter keeps. A search that few findings match reads those by their targets and
   * templates (see {@link searched}) and sorts them.
   */
  async pageIds(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
    counted?: Counted,
  ) {
    let query = this.matching(teamId, filter);
    const known = counted ?? (await this.counts(teamId, filter, window));
    // An impossible bound: fewer findings match than the offset.
    const none = () => query.select('id').where(sql<boolean>`1 = 0`);
    if (known?.candidates !== undefined) {
      const { targets, templates } = known.candidates;
      if (targets.length === 0) return none();
      // Every match has one of these targets and templates; the search still decides. The limit
      // fences the matches off from the page's order, which the planners would otherwise take
      // from the team's newest-first index, walking it (PostgreSQL estimates the search's
      // share of rows with a constant).
      const matches = query
        .select('id')
        .where('target', 'in', targets)
        .where('template_id', 'in', templates)
        .limit(Number.MAX_SAFE_INTEGER);
      return this.db
        .selectFrom(matches.as('match'))
        .select('id')
        .orderBy('id', 'desc')
        .limit(window.limit)
        .offset(window.offset);
    }
    let offset = window.offset;
    if (known !== undefined && countedByBucket(filter)) {
      const place = known.place;
      if (place === undefined) return none();
      // Ids are [0-9a-v]: every id of a bucket and older sorts below the bucket followed by
      // "w", and every id of a bucket and newer at or above the bucket itself.
      query = query.where('id', '<', place.after ?? `${place.first}w`).where('id', '>=', place.last);
      offset = place.skip;
    }
    return query.select('id').orderBy('id', 'desc').limit(window.limit).offset(offset);
  }

  /**
   * What the kept counts tell of a page before it is read: the filter's total, and where its
   * rows are (a search's candidates, or the id buckets of a filter by severity and status).
   * Undefined for filters the counts do not answer (a scan's, by age).
   */
  private async counts(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
  ): Promise<Counted | undefined> {
    if (countedByBucket(filter)) return this.place(teamId, filter, window);
    if (countedBySince(filter)) return { total: await this.sinceTotal(teamId, filter) };
    return this.searched(teamId, filter);
  }

  /**
   * The number of the team's findings recorded since `filter.since` (of its severities and
   * statuses): those of the id buckets newer than the one holding `since` + {@link SINCE_LAG_MS}
   * from `finding_bucket`, and only the others from their rows. A finding's `created_at` is taken
   * just before its id is made (the batch's `now`, then its rows), so one whose id is made more
   * than that lag after `since` was recorded since. The count then reads at most two buckets'
   * rows, however long the age (counting the rows of `time=last_week` had read 19,023 index
   * entries of a million findings; 300,000 findings over a year, the last 90 days counted in
   * 27–42 → 2.8–3.0 ms, measured).
   */
  private async sinceTotal(teamId: string, filter: TeamFindingFilter): Promise<number> {
    const since = filter.since ?? 0;
    const last = leastIdAt(since + SINCE_LAG_MS).slice(0, BUCKET_CHARS);
    // Every id of that bucket and older sorts below it followed by "w" (ids are [0-9a-v]).
    const [recent, newer] = await Promise.all([
      this.matching(teamId, filter)
        .where('id', '<', `${last}w`)
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .executeTakeFirst(),
      this.counted(teamId, filter)
        .where('bucket', '>', last)
        .select((eb) => eb.fn.sum<number | string | null>('n').as('n'))
        .executeTakeFirst(),
    ]);
    return Number(recent?.n ?? 0) + Number(newer?.n ?? 0);
  }

  /**
   * The filter's total over `finding_bucket`, and the id buckets holding the page's rows: the
   * first (holding the matching finding at `offset`, newest first) with how many matching
   * findings of it and older to skip, and the last (holding the page's last row, or the oldest
   * match when the page runs past it). No place when fewer match than the offset. Findings
   * added to newer buckets since cannot shift the answer.
   */
  private async place(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
  ): Promise<Counted> {
    // The running sum is taken here over the buckets' counts, newest first (a few hundred small
    // rows), rather than by a window function in SQL, which sorted them and cost more.
    const buckets = await this.bucketCounts(teamId, filter);
    const { offset } = window;
    const end = offset + window.limit;
    let total = 0;
    let first: { bucket: string; newer: number } | undefined;
    let last: string | undefined;
    let oldest: string | undefined;
    for (const { bucket, n: counted } of buckets) {
      const n = Number(counted);
      if (first === undefined && total + n > offset) first = { bucket, newer: total };
      total += n;
      if (last === undefined && total >= end) last = bucket;
      if (n > 0) oldest = bucket;
    }
    if (first === undefined || oldest === undefined) return { total };
    const place = { first: first.bucket, skip: offset - first.newer, last: last ?? oldest };
    return { total, place: { ...place, ...(await this.resumed(teamId, filter, place)) } };
  }

  /**
   * For a page that skips a stride or more of its first id bucket: where it resumes from the
   * bucket's kept positions (see positions.ts), once the bucket was asked for twice in a
   * generation; nothing otherwise. On either engine: skipping half a bucket of a million findings
   * (a few thousand index entries) cost SQLite as much as writing the page (468 µs, measured).
   */
  private async resumed(
    teamId: string,
    filter: TeamFindingFilter,
    place: { first: string; skip: number },
  ): Promise<{ after: string; skip: number } | undefined> {
    if (place.skip < POSITION_STRIDE) return undefined;
    const severities = filter.severities ?? [];
    const statuses = filter.statuses ?? [];
    const key = `finding_positions ${teamId} ${JSON.stringify([severities, statuses])} ${place.first}`;
    const positions = this.conn.keptPositions.readWhenAskedAgain(key, FINDINGS, async () => {
      const numbered = this.matching(teamId, { severities, statuses })
        .where('id', '<', `${place.first}w`)
        .where('id', '>=', place.first)
        .select(['id', sql<number>`row_number() over (order by id desc)`.as('position')]);
      const rows = await this.db
        .selectFrom(numbered.as('numbered'))
        .select('id')
        .where(sql<SqlBool>`position % ${POSITION_STRIDE} = 0`)
        .orderBy('position')
        .execute();
      return rows.map((row) => row.id);
    });
    return positions === undefined ? undefined : resumeAt(await positions, place.skip);
  }

  /**
   * The filter's count per id bucket, newest first, kept in this process while the store is
   * unchanged (see `KeptCounts`): summing a team's counts by bucket cost PostgreSQL more than
   * reading the page, and SQLite about as much as the page's ids or its text (464 µs a page of a
   * million findings, measured). On SQLite read as one JSON text: a read thread sends one string
   * to parse rather than a few hundred rows to clone into objects.
   */
  private async bucketCounts(
    teamId: string,
    filter: TeamFindingFilter,
  ): Promise<readonly { bucket: string; n: number | string }[]> {
    const counts = this.counted(teamId, filter, this.pagesOf(filter))
      .select(['bucket', (eb) => eb.fn.sum<number | string>('n').as('n')])
      .groupBy('bucket');
    const read =
      this.conn.engine === 'postgres'
        ? () => counts.orderBy('bucket', 'desc').execute()
        : async () => {
            const row = await this.db
              .selectFrom(counts.as('counted'))
              .select(
                sql<string>`json_group_array(json_object('bucket', bucket, 'n', n) order by bucket desc)`.as(
                  'json',
                ),
              )
              .executeTakeFirst();
            return JSON.parse(row?.json ?? '[]') as { bucket: string; n: number }[];
          };
    const key = `finding_bucket ${teamId} ${JSON.stringify([filter.severities ?? [], filter.statuses ?? []])}`;
    return this.conn.kept.read(key, FINDINGS, read) ?? read();
  }

  /** The rows of `finding_bucket` a filter without search, age or scan counts. */
  private counted(teamId: string, filter: TeamFindingFilter, db = this.db) {
    let query = db.selectFrom('finding_bucket').where('team_id', '=', teamId);
    if ((filter.severities ?? []).length > 0) query = query.where('severity', 'in', filter.severities ?? []);
    if ((filter.statuses ?? []).length > 0) query = query.where('vuln_status', 'in', filter.statuses ?? []);
    return query;
  }

  /**
   * The number of matching findings, from the counts kept by triggers where they answer: the
   * team's findings by severity and status (`finding_bucket`), a search of them
   * (`finding_tally`), a scan's by severity (its own counts). Other filters count the
   * matching findings themselves.
   */
  async count(teamId: string, filter: TeamFindingFilter): Promise<number> {
    if (countedBySince(filter)) return this.sinceTotal(teamId, filter);
    if (countedByBucket(filter)) {
      const row = await this.counted(teamId, filter)
        .select((eb) => eb.fn.sum<number | string | null>('n').as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    const searched = await this.searched(teamId, filter);
    if (searched !== undefined) return searched.total;
    const bySeverityOnly =
      (filter.statuses ?? []).length === 0 && (filter.search ?? '') === '' && filter.since === undefined;
    if (bySeverityOnly) {
      const severities = (filter.severities ?? []).length > 0 ? (filter.severities ?? []) : undefined;
      const columns = Object.entries(SEVERITY_COLUMNS)
        .filter(([severity]) => severities === undefined || severities.includes(severity as Severity))
        .map(([, column]) => sql.ref(column));
      let query = this.db
        .selectFrom('scan')
        .select(sql<string | number | null>`sum(${sql.join(columns, sql` + `)})`.as('n'))
        .where('team_id', '=', teamId);
      if (filter.scanId !== undefined) query = query.where('id', '=', filter.scanId);
      const row = await query.executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    const row = await this.matching(teamId, filter)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * A search of the team's findings (without scan or age), counted over `finding_tally` (a row
   * per distinct target, template, severity and status): its total, and the targets and
   * templates of its matches when they are few. Undefined for other filters.
   */
  private async searched(teamId: string, filter: TeamFindingFilter): Promise<Counted | undefined> {
    if ((filter.search ?? '') === '' || filter.scanId !== undefined || filter.since !== undefined)
      return undefined;
    let query = this.db
      .selectFrom('finding_tally')
      .where('team_id', '=', teamId)
      .where(targetOrTemplateContains(this.conn.engine, filter.search ?? ''));
    if ((filter.severities ?? []).length > 0) query = query.where('severity', 'in', filter.severities ?? []);
    if ((filter.statuses ?? []).length > 0) query = query.where('vuln_status', 'in', filter.statuses ?? []);
    // SQLite: one row, the matches' targets and templates as JSON texts: a read thread sends them
    // as two strings, not a row per target and template (a thousand for a common template).
    const readOnSqlite = async (): Promise<Counted> => {
      const row = await query
        .select(sql<number | string | null>`sum(n)`.as('total'))
        .select(sql<string>`json_group_array(distinct target) filter (where n > 0)`.as('targets'))
        .select(sql<string>`json_group_array(distinct template_id) filter (where n > 0)`.as('templates'))
        .executeTakeFirst();
      const total = Number(row?.total ?? 0);
      if (total > this.searchCandidates) return { total };
      const targets = JSON.parse(row?.targets ?? '[]') as string[];
      const templates = JSON.parse(row?.templates ?? '[]') as string[];
      return { total, candidates: { targets, templates } };
    };
    // PostgreSQL: one pass over the matching rows, not grouped: grouped by target and template, it
    // read them in the order of the key, by the index (15 ms for a term every row holds, 10 ms
    // this way, measured). The targets and templates are sent only when they are few.
    const few = sql`sum(n) <= ${this.searchCandidates}`;
    const whenFew = (column: 'target' | 'template_id') =>
      sql<string[] | null>`case when ${few} then array_agg(${sql.ref(column)}) filter (where n > 0) end`;
    const readOnPostgres = async (): Promise<Counted> => {
      const row = await query
        .select(sql<number | string | null>`sum(n)`.as('total'))
        .select(whenFew('target').as('targets'))
        .select(whenFew('template_id').as('templates'))
        .executeTakeFirst();
      const total = Number(row?.total ?? 0);
      if (total > this.searchCandidates) return { total };
      const targets = [...new Set(row?.targets ?? [])];
      const templates = [...new Set(row?.templates ?? [])];
      return { total, candidates: { targets, templates } };
    };
    const read = this.conn.engine === 'sqlite' ? readOnSqlite : readOnPostgres;
    // Kept while the store is unchanged (see `KeptCounts`), as the pages of one search are read in
    // turn: a search's tally cost PostgreSQL more than its page (4–9 ms against 0.7–4 ms), and
    // SQLite 4.2 ms a page of a million findings (measured).
    const key = `finding_tally ${teamId} ${JSON.stringify([filter.search, filter.severities ?? [], filter.statuses ?? [], this.searchCandidates])}`;
    return this.conn.keptSearches.read(key, FINDINGS, read) ?? read();
  }

  private matching(teamId: string, filter: TeamFindingFilter, db = this.db) {
    let query = db.selectFrom('finding').where('team_id', '=', teamId);
    if (filter.scanId !== undefined) query = query.where('scan_id', '=', filter.scanId);
    if ((filter.severities ?? []).length > 0) query = query.where('severity', 'in', filter.severities ?? []);
    if ((filter.statuses ?? []).length > 0) query = query.where('vuln_status', 'in', filter.statuses ?? []);
    if (filter.since !== undefined) {
      // Implied by the age (a finding's id is made as it is recorded), and what the index seeks.
      query = query.where('id', '>=', leastIdAt(filter.since)).where('created_at', '>=', filter.since);
    }
    const term = filter.search ?? '';
    if (term !== '') query = query.where(targetOrTemplateContains(this.conn.engine, term));
    return query;
  }
}

/**
 * A finding as `/v1/scans/results` lists it, as JSON text written by SQLite (see
 * `FindingPages.servedPage`), reading the finding as `f`: the members and order of
 * `resultsPageText`.
 */
function servedFindingJson(): RawBuilder<string> {
  const text = (column: keyof FindingTable) => jsonString(sql.ref(`f.${column}`));
  return formatted([
    '{"matcher_status":true,"vuln_id":',
    text('id'),
    ',"target":',
    text('target'),
    ',"template_url":',
    text('template_url'),
    ',"created_at":',
    jsonTimestamp(sql.ref('f.created_at')),
    ',"updated_at":',
    jsonTimestamp(sql.ref('f.updated_at')),
    ',"scan_id":',
    text('scan_id'),
    ',"template_id":',
    text('template_id'),
    ',"template_path":',
    text('template_path'),
    ',"template_encoded":',
    jsonTemplateText('f'),
    ',"vuln_status":',
    text('vuln_status'),
    ',"vuln_hash":',
    text('vuln_hash'),
    ',"severity":',
    text('severity'),
    ',',
    sql.ref('f.served_fields'),
    ',"result_type":"matched"}',
  ]);
}

/** The columns a served head is written from (see `servedFindingHead`). */
const HEAD_COLUMNS = [
  'id',
  'target',
  'template_url',
  'created_at',
  'scan_id',
  'template_id',
  'template_path',
  'vuln_hash',
  'severity',
] as const satisfies readonly (keyof FindingHeadSource)[];

type HeadColumn = (typeof HEAD_COLUMNS)[number];

/** A finding's head columns, as read for a finding recorded before migration 0026 (`head_id`, …). */
function headSourceOf(row: Record<`head_${HeadColumn}`, string | number | null>): FindingHeadSource {
  const text = (column: HeadColumn) => String(row[`head_${column}`] ?? '');
  return {
    id: text('id'),
    target: text('target'),
    template_url: text('template_url'),
    created_at: Number(row.head_created_at),
    scan_id: text('scan_id'),
    template_id: text('template_id'),
    template_path: text('template_path'),
    vuln_hash: text('vuln_hash'),
    severity: text('severity'),
  };
}

/** A filter by age that the counts per id bucket answer past the age's first id bucket (see `sinceTotal`). */
function countedBySince(filter: TeamFindingFilter): boolean {
  return filter.since !== undefined && filter.scanId === undefined && (filter.search ?? '') === '';
}

/** A filter the team's counts per id bucket answer: by severity and status at most. */
function countedByBucket(filter: TeamFindingFilter): boolean {
  return filter.scanId === undefined && (filter.search ?? '') === '' && filter.since === undefined;
}

/** Lower-cases A–Z only, as SQLite's `lower()` does, so a search matches the same rows on both engines. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

function targetOrTemplateContains(engine: Engine, term: string): Expression<SqlBool> {
  const folded = foldAscii(term);
  if (engine === 'sqlite') {
    // SQLite's LIKE folds A–Z only, as its lower() does, without making a lowered copy of every
    // text it reads (half a search's scan of `finding_tally`, measured); `\`, `%` and `_` are
    // escaped, so the term is as literal as with `instr`. The pattern is unplanned: it starts with
    // `%`, so no index could serve it, and the statement stays prepared.
    const pattern = unplanned(`%${folded.replace(/[\\%_]/g, '\\$&')}%`);
    return sql<SqlBool>`(target like ${pattern} escape '\\' or template_id like ${pattern} escape '\\')`;
  }
  // Under the "C" collation PostgreSQL's lower() folds A–Z only, as SQLite's does.
  return sql<SqlBool>`(strpos(lower(target collate "C"), ${folded}) > 0
    or strpos(lower(template_id collate "C"), ${folded}) > 0)`;
}
