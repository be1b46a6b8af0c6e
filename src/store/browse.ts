import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely';
import type { ResultEvent, Severity } from '../event/index.js';
import type { Connection } from './connect.js';
import type { VulnStatus } from './model.js';
import type { Database, FindingTable } from './schema.js';

/** Most severe first: the order of the `severity` sort, and of a scan's counts in the API's items. */
export const SEVERITY_RANK: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info', 'unknown'];

/** Orders of a scan's findings table: as recorded, most severe first, by host, by template. */
export const FINDING_SORTS = ['recorded', 'severity', 'host', 'template'] as const;
export type FindingSort = (typeof FINDING_SORTS)[number];

export interface FindingFilter {
  readonly severity?: Severity | undefined;
  readonly status?: VulnStatus | undefined;
  /** The finding's target exactly (its host, else where it matched). */
  readonly host?: string | undefined;
  readonly templateId?: string | undefined;
}

/** Where a page ends in its order: the sort's value (none for `recorded`) and the finding's id. */
export interface FindingCursor {
  readonly value: string;
  readonly id: string;
}

export interface FindingPageQuery {
  readonly filter: FindingFilter;
  readonly sort: FindingSort;
  /** The last finding of the previous page; the first page without it. */
  readonly after?: FindingCursor | undefined;
  readonly limit: number;
}

/** What a table row shows of a finding, without its request and response. */
export interface FindingSummary {
  readonly id: string;
  readonly severity: Severity;
  readonly vulnStatus: VulnStatus;
  readonly templateId: string;
  readonly name: string;
  readonly target: string;
  readonly matchedAt: string;
  readonly createdAt: number;
}

export interface FindingPage {
  readonly findings: readonly FindingSummary[];
  /** The cursor of the next page, when there is one. */
  readonly next: FindingCursor | undefined;
}

/** Scan B against scan A, by vuln hash: in B only (new), in A only (fixed), in both (unchanged). */
export const COMPARISONS = ['new', 'fixed', 'unchanged'] as const;
export type Comparison = (typeof COMPARISONS)[number];

const SORT_COLUMN = { host: 'target', template: 'template_id' } as const;

type FindingQuery = SelectQueryBuilder<Database, 'finding', FindingTable>;

/**
 * The reads behind the dashboard's tables: a window of a scan's findings at a time, found by
 * keyset on the `(scan_id, column, id)` indexes of migration 0013, so a page costs the same on
 * the first page of a million findings as on the last. Callers check the scan's team first.
 */
export class FindingBrowser {
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  /** One page of a scan's findings, filtered and sorted. */
  async page(scanId: string, query: FindingPageQuery): Promise<FindingPage> {
    const rows =
      query.sort === 'severity'
        ? await this.bySeverity(scanId, query)
        : await this.byColumn(scanId, query, query.sort);
    const shown = rows.slice(0, query.limit);
    const last = shown.at(-1);
    return {
      findings: shown.map(summaryOf),
      next: rows.length > query.limit && last !== undefined ? cursorOf(last, query.sort) : undefined,
    };
  }

  /** The findings of one side of a comparison, a page at a time in recorded order. */
  async compare(
    base: string,
    head: string,
    kind: Comparison,
    window: { after?: string | undefined; limit: number },
  ): Promise<{ findings: FindingSummary[]; next: string | undefined }> {
    let query = this.comparison(base, head, kind).selectAll('f');
    if (window.after !== undefined) query = query.where('f.id', '>', window.after);
    const rows = await query
      .orderBy('f.id')
      .limit(window.limit + 1)
      .execute();
    const shown = rows.slice(0, window.limit);
    return {
      findings: shown.map(summaryOf),
      next: rows.length > window.limit ? shown.at(-1)?.id : undefined,
    };
  }

  /** How many findings each side of a comparison holds. */
  async comparisonCounts(base: string, head: string): Promise<Record<Comparison, number>> {
    const counts = await Promise.all(
      COMPARISONS.map(async (kind) => {
        const row = await this.comparison(base, head, kind)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow();
        return [kind, Number(row.n)] as const;
      }),
    );
    return Object.fromEntries(counts) as Record<Comparison, number>;
  }

  /** The scan's template ids (at most `limit`), for the template filter's suggestions. */
  async templateIds(scanId: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('scan_template')
      .select('template_id')
      .where('scan_id', '=', scanId)
      .orderBy('position')
      .limit(limit)
      .execute();
    return rows.map((row) => row.template_id);
  }

  private comparison(base: string, head: string, kind: Comparison) {
    const [listed, other] = kind === 'fixed' ? [base, head] : [head, base];
    const inOther = (eb: ExpressionBuilder<Database & { f: FindingTable }, 'f'>) =>
      eb.exists(
        eb
          .selectFrom('finding as g')
          .select('g.id')
          .where('g.scan_id', '=', other)
          .whereRef('g.vuln_hash', '=', 'f.vuln_hash'),
      );
    return this.db
      .selectFrom('finding as f')
      .where('f.scan_id', '=', listed)
      .where((eb) => (kind === 'unchanged' ? inOther(eb) : eb.not(inOther(eb))));
  }

  private filtered(scanId: string, filter: FindingFilter): FindingQuery {
    let query = this.db.selectFrom('finding').selectAll().where('scan_id', '=', scanId);
    if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
    if (filter.status !== undefined) query = query.where('vuln_status', '=', filter.status);
    if (filter.host !== undefined) query = query.where('target', '=', filter.host);
    if (filter.templateId !== undefined) query = query.where('template_id', '=', filter.templateId);
    return query;
  }

  private async byColumn(
    scanId: string,
    query: FindingPageQuery,
    sort: Exclude<FindingSort, 'severity'>,
  ): Promise<FindingTable[]> {
    let rows = this.filtered(scanId, query.filter);
    const after = query.after;
    if (sort === 'recorded') {
      if (after !== undefined) rows = rows.where('id', '>', after.id);
      return rows
        .orderBy('id')
        .limit(query.limit + 1)
        .execute();
    }
    const column = SORT_COLUMN[sort];
    if (after !== undefined) {
      rows = rows.where((eb) =>
        eb.or([
          eb(column, '>', after.value),
          eb.and([eb(column, '=', after.value), eb('id', '>', after.id)]),
        ]),
      );
    }
    return rows
      .orderBy(column)
      .orderBy('id')
      .limit(query.limit + 1)
      .execute();
  }

  /** Most severe first: one index range per severity, from the cursor's severity on. */
  private async bySeverity(scanId: string, query: FindingPageQuery): Promise<FindingTable[]> {
    const wanted = query.filter.severity === undefined ? SEVERITY_RANK : [query.filter.severity];
    const from = query.after === undefined ? 0 : Math.max(0, wanted.indexOf(query.after.value as Severity));
    const found: FindingTable[] = [];
    for (const severity of wanted.slice(from)) {
      let rows = this.filtered(scanId, { ...query.filter, severity });
      if (query.after !== undefined && query.after.value === severity)
        rows = rows.where('id', '>', query.after.id);
      found.push(
        ...(await rows
          .orderBy('id')
          .limit(query.limit + 1 - found.length)
          .execute()),
      );
      if (found.length > query.limit) break;
    }
    return found;
  }
}

function cursorOf(row: FindingTable, sort: FindingSort): FindingCursor {
  const value =
    sort === 'severity'
      ? row.severity
      : sort === 'host'
        ? row.target
        : sort === 'template'
          ? row.template_id
          : '';
  return { value, id: row.id };
}

function summaryOf(row: FindingTable): FindingSummary {
  const event = JSON.parse(row.event) as Partial<ResultEvent>;
  return {
    id: row.id,
    severity: row.severity as Severity,
    vulnStatus: row.vuln_status as VulnStatus,
    templateId: row.template_id,
    name: typeof event.info?.name === 'string' ? event.info.name : row.template_id,
    target: row.target,
    matchedAt: typeof event['matched-at'] === 'string' ? event['matched-at'] : '',
    createdAt: Number(row.created_at),
  };
}
