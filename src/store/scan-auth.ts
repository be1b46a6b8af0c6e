import type { Kysely } from 'kysely';
import type { Connection } from './connect.js';
import type { Database, ScanAuthTable } from './schema.js';
import { chunks, writeTransaction } from './tx.js';

/** A secret-file entry as a scan records it: what it is and where it applies, never a value. */
export interface AuthEntry {
  /** Kind, types and scope hashed: the same entry in every copy of the secret file. */
  readonly fingerprint: string;
  /** `dynamic[0] of secrets.yaml`. */
  readonly label: string;
  readonly kind: 'static' | 'dynamic';
  readonly types: readonly string[];
  readonly scope: string;
}

export interface EntryCounts {
  readonly requests: number;
  /** Requests not sent because the entry's login failed. */
  readonly refused: number;
  /** Answers by which the target refused the entry's secret: a 401, a redirect to a login page. */
  readonly rejected: number;
  readonly logins: number;
  readonly loginFailures: number;
  readonly relogins: number;
}

/** How authenticated a scan was. */
export interface ScanAuthentication {
  /** Requests the templates sent, with a secret or without. */
  readonly requests: number;
  /** Of those, the ones sent with a secret. */
  readonly authenticated: number;
  /** Per entry, in the order they were first recorded; `planned` ones a queued scan needs. */
  readonly entries: readonly (AuthEntry & EntryCounts & { readonly planned: boolean })[];
}

/** What one scan, or one chunk of it, did: added to the scan's figures. */
export interface AuthenticationFigures {
  /** Requests sent without a secret. */
  readonly unauthenticated: number;
  readonly entries: readonly (AuthEntry & EntryCounts)[];
}

const NO_SECRET = '';

/** The authentication figures of scans (`scan_auth`). */
export class ScanAuth {
  constructor(private readonly conn: Connection) {}

  /** Adds figures to the scan's (a worker adds each chunk's). */
  async add(scanId: string, figures: AuthenticationFigures): Promise<void> {
    const rows = [
      {
        fingerprint: NO_SECRET,
        label: '',
        kind: '',
        types: '',
        scope: '',
        requests: figures.unauthenticated,
        refused: 0,
        rejected: 0,
        logins: 0,
        login_failures: 0,
        relogins: 0,
      },
      ...figures.entries.map((e) => ({
        fingerprint: e.fingerprint,
        label: e.label,
        kind: e.kind,
        types: e.types.join(','),
        scope: e.scope,
        requests: e.requests,
        refused: e.refused,
        rejected: e.rejected,
        logins: e.logins,
        login_failures: e.loginFailures,
        relogins: e.relogins,
      })),
    ];
    await writeTransaction(this.conn, async (db) => {
      for (const part of chunks(rows, 200)) {
        await db
          .insertInto('scan_auth')
          .values(part.map((row) => ({ scan_id: scanId, planned: 0 as const, ...row })))
          .onConflict((conflict) =>
            conflict.columns(['scan_id', 'fingerprint']).doUpdateSet((eb) => ({
              requests: eb('scan_auth.requests', '+', eb.ref('excluded.requests')),
              refused: eb('scan_auth.refused', '+', eb.ref('excluded.refused')),
              rejected: eb('scan_auth.rejected', '+', eb.ref('excluded.rejected')),
              logins: eb('scan_auth.logins', '+', eb.ref('excluded.logins')),
              login_failures: eb('scan_auth.login_failures', '+', eb.ref('excluded.login_failures')),
              relogins: eb('scan_auth.relogins', '+', eb.ref('excluded.relogins')),
            })),
          )
          .execute();
      }
    });
  }

  /** The figures of each scan asked for that has any (scans run without secret files have none). */
  async of(scanIds: readonly string[]): Promise<Map<string, ScanAuthentication>> {
    const found = new Map<string, ScanAuthentication>();
    if (scanIds.length === 0) return found;
    const rows = await this.conn.db
      .selectFrom('scan_auth')
      .selectAll()
      .where('scan_id', 'in', [...scanIds])
      .orderBy('scan_id')
      .orderBy('label')
      .execute();
    const byScan = new Map<string, ScanAuthTable[]>();
    for (const row of rows) byScan.set(row.scan_id, [...(byScan.get(row.scan_id) ?? []), row]);
    for (const [scanId, scanRows] of byScan) found.set(scanId, authenticationOf(scanRows));
    return found;
  }
}

/** Records the entries a queued scan was planned with, in the transaction that creates it. */
export async function insertPlannedEntries(
  db: Kysely<Database>,
  scanId: string,
  entries: readonly AuthEntry[],
): Promise<void> {
  for (const part of chunks(entries, 200)) {
    await db
      .insertInto('scan_auth')
      .values(
        part.map((e) => ({
          scan_id: scanId,
          fingerprint: e.fingerprint,
          label: e.label,
          kind: e.kind,
          types: e.types.join(','),
          scope: e.scope,
          planned: 1 as const,
          requests: 0,
          refused: 0,
          rejected: 0,
          logins: 0,
          login_failures: 0,
          relogins: 0,
        })),
      )
      .execute();
  }
}

function authenticationOf(rows: readonly ScanAuthTable[]): ScanAuthentication {
  const entries = rows
    .filter((row) => row.fingerprint !== NO_SECRET)
    .map((row) => ({
      fingerprint: row.fingerprint,
      label: row.label,
      kind: row.kind as AuthEntry['kind'],
      types: row.types === '' ? [] : row.types.split(','),
      scope: row.scope,
      planned: row.planned === 1,
      requests: Number(row.requests),
      refused: Number(row.refused),
      rejected: Number(row.rejected),
      logins: row.logins,
      loginFailures: row.login_failures,
      relogins: row.relogins,
    }));
  const authenticated = entries.reduce((sum, e) => sum + e.requests, 0);
  const unauthenticated = rows
    .filter((row) => row.fingerprint === NO_SECRET)
    .reduce((sum, row) => sum + Number(row.requests), 0);
  return { requests: authenticated + unauthenticated, authenticated, entries };
}
