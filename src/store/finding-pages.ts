import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { Severity } from '../event/index.js';
import type { Connection } from './connect.js';
import { findingsOf } from './findings.js';
import type { Engine } from './location.js';
import type { Finding, VulnStatus } from './model.js';
import type { Database } from './schema.js';
import type { EpochMs } from './time.js';

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
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  async list(
    teamId: string,
    filter: TeamFindingFilter,
    window: { offset: number; limit: number },
  ): Promise<TeamFindingPage> {
    // Deferred join: the window is found on the narrow index (the skipped entries' events, the
    // bulk of a row, are never read), then only its rows are.
    const ids = this.matching(teamId, filter)
      .select('id')
      .orderBy('id', 'desc')
      .limit(window.limit)
      .offset(window.offset);
    const rows = await this.db
      .selectFrom('finding')
      .selectAll()
      .where('id', 'in', ids)
      .orderBy('id', 'desc')
      .execute();
    return { findings: await findingsOf(this.db, rows), total: await this.count(teamId, filter) };
  }

  /**
   * The number of matching findings. Filtered by severity at most, it is the sum of the counts
   * each scan keeps of its findings per severity (a row per scan, not per finding); other
   * filters count the matching findings themselves.
   */
  async count(teamId: string, filter: TeamFindingFilter): Promise<number> {
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

  private matching(teamId: string, filter: TeamFindingFilter) {
    let query = this.db.selectFrom('finding').where('team_id', '=', teamId);
    if (filter.scanId !== undefined) query = query.where('scan_id', '=', filter.scanId);
    if ((filter.severities ?? []).length > 0) query = query.where('severity', 'in', filter.severities ?? []);
    if ((filter.statuses ?? []).length > 0) query = query.where('vuln_status', 'in', filter.statuses ?? []);
    if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since);
    const term = filter.search ?? '';
    if (term !== '') query = query.where(targetOrTemplateContains(this.conn.engine, term));
    return query;
  }
}

/** Lower-cases A–Z only, as SQLite's `lower()` does, so a search matches the same rows on both engines. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

function targetOrTemplateContains(engine: Engine, term: string): Expression<SqlBool> {
  const folded = foldAscii(term);
  if (engine === 'sqlite') {
    return sql<SqlBool>`(instr(lower(target), ${folded}) > 0 or instr(lower(template_id), ${folded}) > 0)`;
  }
  // Under the "C" collation PostgreSQL's lower() folds A–Z only, as SQLite's does.
  return sql<SqlBool>`(strpos(lower(target collate "C"), ${folded}) > 0
    or strpos(lower(template_id collate "C"), ${folded}) > 0)`;
}
