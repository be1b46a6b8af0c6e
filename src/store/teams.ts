import type { Kysely } from 'kysely';
import { newId } from './id.js';
import type { Team } from './model.js';
import type { Database } from './schema.js';

export class Teams {
  constructor(private readonly db: Kysely<Database>) {}

  /** The team of that name, created on first use. */
  async ensure(name: string): Promise<Team> {
    const existing = await this.byName(name);
    if (existing !== undefined) return existing;
    await this.db
      .insertInto('team')
      .values({ id: newId(), name, created_at: Date.now() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const created = await this.byName(name);
    if (created === undefined) throw new Error(`team "${name}" could not be created`);
    return created;
  }

  async byName(name: string): Promise<Team | undefined> {
    const row = await this.db.selectFrom('team').selectAll().where('name', '=', name).executeTakeFirst();
    return row === undefined ? undefined : { id: row.id, name: row.name, createdAt: row.created_at };
  }

  /** Every team's name, in order. */
  async names(): Promise<string[]> {
    const rows = await this.db.selectFrom('team').select('name').orderBy('name').execute();
    return rows.map((row) => row.name);
  }

  async get(id: string): Promise<Team | undefined> {
    const row = await this.db.selectFrom('team').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : { id: row.id, name: row.name, createdAt: row.created_at };
  }
}
