import type { Kysely } from 'kysely';
import type { ResultEvent, Severity } from '../event/index.js';
import type { Connection } from './connect.js';
import { StoreRequestError } from './errors.js';
import { newId } from './id.js';
import type { Finding, ScanStatus, TemplateRef, VulnStatus } from './model.js';
import { keepScanLists } from './scan-lists.js';
import type { Database, FindingTable } from './schema.js';
import { servedFindingFields, servedFindingHead } from './served-event.js';
import { encodedOf, loadSources, storeSources } from './templates.js';
import { chunks, writeTransaction } from './tx.js';
import { severityOf, targetOf, vulnHash } from './vuln-hash.js';

/** Statuses of a scan that still takes findings: live scans as they run, imports as they read. */
const OPEN_FOR_FINDINGS: readonly ScanStatus[] = ['starting', 'running', 'uploaded'];

export interface AddOptions {
  /** The template that produced the event, when the scan did not declare it (its source is kept). */
  readonly template?: TemplateRef;
}

export class Findings {
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  /**
   * Records one matched result of a scan as it is found: computes its vuln id and hash, stores
   * it and counts its severity on the scan, in one committed transaction. Recording the same
   * result again (same vuln hash in the same scan) returns the existing finding.
   */
  async add(
    scanId: string,
    event: ResultEvent,
    options: AddOptions = {},
  ): Promise<{ finding: Finding; created: boolean }> {
    if (options.template !== undefined) await this.declareTemplate(scanId, options.template);
    const { inserted } = await this.addMany(scanId, [event]);
    const finding = await this.byHash(scanId, vulnHash(event));
    if (finding === undefined) throw new Error(`the finding of scan ${scanId} could not be read back`);
    return { finding, created: inserted > 0 };
  }

  /**
   * Records matched results in one transaction (imports use batches of a few hundred); returns
   * how many were new and their severities. Events with `matcher-status: false` are not findings
   * and are refused.
   */
  async addMany(
    scanId: string,
    events: readonly ResultEvent[],
  ): Promise<{ inserted: number; severities: Severity[] }> {
    const unmatched = events.findIndex((e) => e['matcher-status'] === false);
    if (unmatched >= 0)
      throw new StoreRequestError('an event with matcher-status false is not a finding', 'invalid');
    return writeTransaction(this.conn, async (db) => {
      const scan = await db
        .selectFrom('scan')
        .select(['team_id', 'status'])
        .where('id', '=', scanId)
        .executeTakeFirst();
      if (scan === undefined) throw new StoreRequestError(`no scan has the id ${scanId}`, 'not_found');
      if (!OPEN_FOR_FINDINGS.includes(scan.status as ScanStatus)) {
        throw new StoreRequestError(
          `scan ${scanId} is ${scan.status}; it takes no more findings`,
          'conflict',
        );
      }
      const templateHashes = await templateHashesOf(db, scanId, events);
      const now = Date.now();
      const rows = events.map((event) => findingRow(event, scan.team_id, scanId, templateHashes, now));
      const severities = await this.insertNew(db, rows);
      if (severities.length > 0) await countSeverities(db, scanId, severities, now);
      return { inserted: severities.length, severities };
    });
  }

  /** Inserts the rows whose (scan, vuln hash) is new; returns their severities. */
  private async insertNew(db: Kysely<Database>, rows: readonly FindingTable[]): Promise<Severity[]> {
    const severities: Severity[] = [];
    if (this.conn.engine === 'sqlite') {
      // One prepared statement run per row: compiling multi-row inserts costs more than SQLite
      // spends storing the rows. Same handle, so inside the caller's transaction.
      this.sqliteInsert ??= this.conn.sqlite.prepare(
        `insert into finding (${FINDING_COLUMNS.join(', ')}) values (${FINDING_COLUMNS.map(() => '?').join(', ')})
         on conflict (scan_id, vuln_hash) do nothing`,
      );
      for (const row of rows) {
        if (this.sqliteInsert.run(FINDING_COLUMNS.map((c) => row[c])).changes > 0) {
          severities.push(row.severity as Severity);
        }
      }
      return severities;
    }
    for (const part of chunks(rows, 250)) {
      const inserted = await db
        .insertInto('finding')
        .values(part)
        .onConflict((oc) => oc.columns(['scan_id', 'vuln_hash']).doNothing())
        .returning('severity')
        .execute();
      for (const row of inserted) severities.push(row.severity as Severity);
    }
    return severities;
  }

  private sqliteInsert: { run(values: unknown[]): { changes: number } } | undefined;

  /** The finding with that vuln id, if it exists and (when `teamId` is given) belongs to that team. */
  async get(vulnId: string, teamId?: string): Promise<Finding | undefined> {
    let query = this.db.selectFrom('finding').selectAll().where('id', '=', vulnId);
    if (teamId !== undefined) query = query.where('team_id', '=', teamId);
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : (await this.withSources([row]))[0];
  }

  /** A scan's findings in the order they were recorded, a window at a time (`after` = last id seen). */
  async ofScan(scanId: string, window: { after?: string | undefined; limit: number }): Promise<Finding[]> {
    let query = this.db.selectFrom('finding').selectAll().where('scan_id', '=', scanId);
    if (window.after !== undefined) query = query.where('id', '>', window.after);
    const rows = await query.orderBy('id').limit(window.limit).execute();
    return this.withSources(rows);
  }

  /** Every finding of a scan, read a page at a time so memory stays flat. */
  async *allOfScan(scanId: string, pageSize = 500): AsyncGenerator<Finding> {
    let after: string | undefined;
    for (;;) {
      const page = await this.ofScan(scanId, { after, limit: pageSize });
      yield* page;
      if (page.length < pageSize) return;
      after = page.at(-1)?.id;
    }
  }

  /** Triage: sets the finding's status (open, fixed, false_positive, …). */
  async setStatus(vulnId: string, status: VulnStatus): Promise<void> {
    const result = await this.db
      .updateTable('finding')
      .set({ vuln_status: status, updated_at: Date.now() })
      .where('id', '=', vulnId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0)
      throw new StoreRequestError(`no finding has the vuln id ${vulnId}`, 'not_found');
  }

  private async byHash(scanId: string, hash: string): Promise<Finding | undefined> {
    const row = await this.db
      .selectFrom('finding')
      .selectAll()
      .where('scan_id', '=', scanId)
      .where('vuln_hash', '=', hash)
      .executeTakeFirst();
    return row === undefined ? undefined : (await this.withSources([row]))[0];
  }

  private async declareTemplate(scanId: string, template: TemplateRef): Promise<void> {
    await writeTransaction(this.conn, async (db) => {
      const [hash] = await storeSources(db, [encodedOf(template)]);
      const position = await db
        .selectFrom('scan_template')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('scan_id', '=', scanId)
        .executeTakeFirstOrThrow();
      const inserted = await db
        .insertInto('scan_template')
        .values({
          scan_id: scanId,
          position: Number(position.n),
          template_id: template.id,
          template_path: template.path ?? '',
          template_url: template.url ?? '',
          template_hash: hash ?? null,
          is_public: template.isPublic === true ? 1 : 0,
        })
        .onConflict((oc) => oc.columns(['scan_id', 'template_id']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0)
        await keepScanLists(db, this.conn.engine, scanId);
    });
  }

  private withSources(rows: readonly FindingTable[]): Promise<Finding[]> {
    return findingsOf(this.db, rows);
  }
}

/** Finding rows as findings, their templates' sources read in one query. */
export async function findingsOf(db: Kysely<Database>, rows: readonly FindingTable[]): Promise<Finding[]> {
  const sources = await loadSources(
    db,
    rows.map((r) => r.template_hash),
  );
  return rows.map((row) => ({
    ...findingColumnsOf(row, sources),
    event: JSON.parse(row.event) as ResultEvent,
  }));
}

/** A finding row's fields but its event, its template's source taken from `sources`. */
export function findingColumnsOf(
  row: Omit<FindingTable, 'event' | 'served_fields' | 'served_head'>,
  sources: ReadonlyMap<string, string>,
): Omit<Finding, 'event'> {
  return {
    id: row.id,
    teamId: row.team_id,
    scanId: row.scan_id,
    vulnHash: row.vuln_hash,
    vulnStatus: row.vuln_status as VulnStatus,
    severity: row.severity as Severity,
    templateId: row.template_id,
    templatePath: row.template_path,
    templateUrl: row.template_url,
    templateEncoded: row.template_hash === null ? '' : (sources.get(row.template_hash) ?? ''),
    target: row.target,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const FINDING_COLUMNS = [
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
] as const satisfies readonly (keyof FindingTable)[];

function findingRow(
  event: ResultEvent,
  teamId: string,
  scanId: string,
  templateHashes: ReadonlyMap<string, string | null>,
  now: number,
): FindingTable {
  // The template's source is kept once in template_source, not in every event.
  const { 'template-encoded': _encoded, ...stored } = event as ResultEvent & { 'template-encoded'?: unknown };
  const columns = {
    id: newId(),
    team_id: teamId,
    scan_id: scanId,
    vuln_hash: vulnHash(event),
    vuln_status: 'open',
    severity: severityOf(event),
    template_id: event['template-id'],
    template_path: event['template-path'] ?? '',
    template_url: event['template-url'] ?? '',
    template_hash: templateHashes.get(event['template-id']) ?? null,
    target: targetOf(event),
    created_at: now,
    updated_at: now,
  };
  return {
    ...columns,
    event: JSON.stringify(stored),
    served_fields: servedFindingFields(stored as ResultEvent),
    served_head: servedFindingHead(columns),
  };
}

async function templateHashesOf(
  db: Kysely<Database>,
  scanId: string,
  events: readonly ResultEvent[],
): Promise<Map<string, string | null>> {
  const ids = [...new Set(events.map((e) => e['template-id']))];
  const found = new Map<string, string | null>();
  for (const part of chunks(ids, 500)) {
    const rows = await db
      .selectFrom('scan_template')
      .select(['template_id', 'template_hash'])
      .where('scan_id', '=', scanId)
      .where('template_id', 'in', part)
      .execute();
    for (const row of rows) found.set(row.template_id, row.template_hash);
  }
  return found;
}

async function countSeverities(
  db: Kysely<Database>,
  scanId: string,
  severities: readonly Severity[],
  now: number,
) {
  const counts = new Map<Severity, number>();
  for (const s of severities) counts.set(s, (counts.get(s) ?? 0) + 1);
  await db
    .updateTable('scan')
    .set((eb) => {
      const set: Record<string, unknown> = { updated_at: now };
      for (const [severity, n] of counts) {
        const column = `severity_${severity}` as const;
        set[column] = eb(column, '+', n);
      }
      return set as never;
    })
    .where('id', '=', scanId)
    .execute();
}
