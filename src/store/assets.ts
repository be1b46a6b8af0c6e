import type { Kysely } from 'kysely';
import type { Connection } from './connect.js';
import { newId } from './id.js';
import type { AssetList, PageQuery } from './model.js';
import type { AssetListTable, Database } from './schema.js';
import { nameContains } from './search.js';
import { chunks, fold, writeTransaction } from './tx.js';

export interface AssetQuery extends PageQuery {
  readonly search?: string | undefined;
}

export class AssetLists {
  constructor(private readonly conn: Connection) {}

  private get db(): Kysely<Database> {
    return this.conn.db;
  }

  /** Stores a named list of targets (already checked and de-duplicated, see `src/targets`). */
  async create(input: { teamId: string; name: string; targets: readonly string[] }): Promise<AssetList> {
    const row: AssetListTable = {
      id: newId(),
      team_id: input.teamId,
      name: input.name,
      name_folded: fold(input.name),
      asset_count: input.targets.length,
      uploaded_at: Date.now(),
    };
    await writeTransaction(this.conn, async (db) => {
      await db.insertInto('asset_list').values(row).execute();
      let position = 0;
      for (const part of chunks(input.targets, 500)) {
        await db
          .insertInto('asset_target')
          .values(part.map((target) => ({ asset_id: row.id, position: position++, target })))
          .execute();
      }
    });
    return toAssetList(row);
  }

  /**
   * Adds targets (already checked and de-duplicated among themselves) after the list's own, but
   * none the list has (compared by `keyOf`, in the transaction, so appends sent at once never add
   * one target twice); or, with `replace`, stores them instead of the list's own. The list counts
   * as uploaded now. Undefined when the team has no list of that id.
   */
  async write(
    id: string,
    teamId: string,
    targets: readonly string[],
    mode: 'append' | 'replace',
    keyOf: (target: string) => string = (target) => target,
  ): Promise<{ list: AssetList; added: number } | undefined> {
    return writeTransaction(this.conn, async (db) => {
      const query = db
        .selectFrom('asset_list')
        .selectAll()
        .where('id', '=', id)
        .where('team_id', '=', teamId);
      // Two appends at once take their turns (SQLite's write lock does it there).
      const list = await (this.conn.engine === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
      if (list === undefined) return undefined;
      let fresh = targets;
      let position = 0;
      if (mode === 'replace') await db.deleteFrom('asset_target').where('asset_id', '=', id).execute();
      else {
        const own = await db
          .selectFrom('asset_target')
          .select(['target', 'position'])
          .where('asset_id', '=', id)
          .execute();
        const known = new Set(own.map((row) => keyOf(row.target)));
        fresh = targets.filter((target) => !known.has(keyOf(target)));
        position = own.reduce((last, row) => Math.max(last, Number(row.position) + 1), 0);
      }
      for (const part of chunks(fresh, 500)) {
        await db
          .insertInto('asset_target')
          .values(part.map((target) => ({ asset_id: id, position: position++, target })))
          .execute();
      }
      const counted = await db
        .selectFrom('asset_target')
        .select(({ fn }) => fn.countAll<number>().as('n'))
        .where('asset_id', '=', id)
        .executeTakeFirstOrThrow();
      const updated = { ...list, asset_count: Number(counted.n), uploaded_at: Date.now() };
      await db
        .updateTable('asset_list')
        .set({ asset_count: updated.asset_count, uploaded_at: updated.uploaded_at })
        .where('id', '=', id)
        .execute();
      return { list: toAssetList(updated), added: fresh.length };
    });
  }

  /** The team's asset lists, newest first. */
  async list(teamId: string, query: AssetQuery): Promise<AssetList[]> {
    let ids = this.db.selectFrom('asset_list').select('id').where('team_id', '=', teamId);
    if (query.search !== undefined && query.search !== '') {
      ids = ids.where(nameContains(this.conn.engine, query.search));
    }
    ids = ids.orderBy('uploaded_at', 'desc').orderBy('id', 'desc').limit(query.limit).offset(query.offset);
    const rows = await this.db
      .selectFrom('asset_list')
      .selectAll()
      .where('id', 'in', ids)
      .orderBy('uploaded_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toAssetList);
  }

  /** The asset list, if it exists and (when `teamId` is given) belongs to that team. */
  async get(id: string, teamId?: string): Promise<AssetList | undefined> {
    let query = this.db.selectFrom('asset_list').selectAll().where('id', '=', id);
    if (teamId !== undefined) query = query.where('team_id', '=', teamId);
    const row = await query.executeTakeFirst();
    return row === undefined ? undefined : toAssetList(row);
  }

  /** The targets of an asset list in upload order (what `keyhole scan --asset ID` scans). */
  async targets(id: string, teamId?: string): Promise<string[] | undefined> {
    if ((await this.get(id, teamId)) === undefined) return undefined;
    const rows = await this.db
      .selectFrom('asset_target')
      .select('target')
      .where('asset_id', '=', id)
      .orderBy('position')
      .execute();
    return rows.map((r) => r.target);
  }
}

function toAssetList(row: AssetListTable): AssetList {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    assetCount: row.asset_count,
    uploadedAt: row.uploaded_at,
  };
}
