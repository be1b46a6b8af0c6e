import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newId } from './id.js';
import { type ApiKeyInfo, isKeyScope, type KeyScope, type Principal } from './model.js';
import type { Database } from './schema.js';

export const API_KEY_PREFIX = 'kh_';
/** `kh_` then 32 random bytes in base64url: 256 bits, never guessable. */
const API_KEY_SHAPE = /^kh_[A-Za-z0-9_-]{43}$/;
const SHOWN_PREFIX_LENGTH = 10;

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export class ApiKeys {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Creates a key for the team, `read` unless asked otherwise; the secret is returned here once
   * and never stored.
   */
  async create(input: {
    teamId: string;
    name: string;
    scope?: KeyScope;
  }): Promise<{ key: ApiKeyInfo; secret: string }> {
    const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = newId();
    await this.db
      .insertInto('api_key')
      .values({
        id,
        team_id: input.teamId,
        name: input.name,
        key_hash: hashApiKey(secret),
        key_prefix: secret.slice(0, SHOWN_PREFIX_LENGTH),
        scope: input.scope ?? 'read',
        created_at: Date.now(),
        revoked_at: null,
      })
      .execute();
    const key = await this.get(id);
    if (key === undefined) throw new Error('the new API key could not be read back');
    return { key, secret };
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.query()
      .orderBy('api_key.created_at', 'desc')
      .orderBy('api_key.id', 'desc')
      .execute();
    return rows.map(toInfo);
  }

  /** The team's keys, newest first. */
  async ofTeam(teamId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.query()
      .where('api_key.team_id', '=', teamId)
      .orderBy('api_key.created_at', 'desc')
      .orderBy('api_key.id', 'desc')
      .execute();
    return rows.map(toInfo);
  }

  async get(id: string): Promise<ApiKeyInfo | undefined> {
    const row = await this.query().where('api_key.id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toInfo(row);
  }

  /** Revokes the key (idempotent); undefined when no key has that id. */
  async revoke(id: string): Promise<ApiKeyInfo | undefined> {
    await this.db
      .updateTable('api_key')
      .set({ revoked_at: Date.now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    return this.get(id);
  }

  /**
   * The caller a presented key stands for, or undefined for a malformed, unknown or revoked key.
   * The key is looked up by its SHA-256 (the database only ever compares hashes of a 256-bit
   * secret, which tells an attacker nothing), then the stored hash is compared in constant time.
   */
  async authenticate(secret: string): Promise<Principal | undefined> {
    if (!API_KEY_SHAPE.test(secret)) return undefined;
    const presented = hashApiKey(secret);
    const row = await this.db
      .selectFrom('api_key')
      .select(['id', 'team_id', 'key_hash', 'scope', 'revoked_at'])
      .where('key_hash', '=', presented)
      .executeTakeFirst();
    if (row === undefined || row.revoked_at !== null) return undefined;
    const stored = Buffer.from(row.key_hash, 'hex');
    const given = Buffer.from(presented, 'hex');
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) return undefined;
    return { keyId: row.id, teamId: row.team_id, scope: scopeOf(row.scope) };
  }

  private query() {
    return this.db
      .selectFrom('api_key')
      .innerJoin('team', 'team.id', 'api_key.team_id')
      .select([
        'api_key.id',
        'api_key.team_id',
        'team.name as team_name',
        'api_key.name',
        'api_key.key_prefix',
        'api_key.scope',
        'api_key.created_at',
        'api_key.revoked_at',
      ]);
  }
}

function toInfo(row: {
  id: string;
  team_id: string;
  team_name: string;
  name: string;
  key_prefix: string;
  scope: string;
  created_at: number;
  revoked_at: number | null;
}): ApiKeyInfo {
  return {
    id: row.id,
    teamId: row.team_id,
    teamName: row.team_name,
    name: row.name,
    prefix: row.key_prefix,
    scope: scopeOf(row.scope),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** A scope the store does not know (written by a newer keyhole) grants the least: reading. */
function scopeOf(stored: string): KeyScope {
  return isKeyScope(stored) ? stored : 'read';
}
