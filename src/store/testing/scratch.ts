import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { StoreLocation } from '../index.js';

/** A fresh, empty database for a test file or a benchmark; `drop` removes every trace of it. */
export interface ScratchDatabase {
  readonly location: StoreLocation;
  drop(): Promise<void>;
}

/**
 * The PostgreSQL server tests and benchmarks use: 127.0.0.1:5432, user postgres, trust auth
 * (override with KEYHOLE_TEST_PG).
 */
export const SCRATCH_PG_SERVER = process.env.KEYHOLE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432';

export async function scratchSqlite(): Promise<ScratchDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'keyhole-store-'));
  return {
    location: { engine: 'sqlite', path: join(dir, 'keyhole.db'), isDefault: false },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Creates `keyhole_scratch_<pid>_<random>` on the test server; dropped (connections and all) by `drop`. */
export async function scratchPostgres(): Promise<ScratchDatabase> {
  const name = `keyhole_scratch_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  return {
    location: { engine: 'postgres', url: `${SCRATCH_PG_SERVER}/${name}` },
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${SCRATCH_PG_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
