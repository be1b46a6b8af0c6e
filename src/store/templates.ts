import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { TemplateRef } from './model.js';
import type { Database } from './schema.js';

/** The base64 text of a template, from its content or as already encoded; "" when unknown. */
export function encodedOf(ref: Pick<TemplateRef, 'content' | 'encoded'>): string {
  if (ref.content !== undefined) return Buffer.from(ref.content, 'utf8').toString('base64');
  return ref.encoded ?? '';
}

/** Stores template sources once each (by hash); returns the hash for each, or null when unknown. */
export async function storeSources(
  db: Kysely<Database>,
  encoded: readonly string[],
): Promise<(string | null)[]> {
  const hashes = encoded.map((text) =>
    text === '' ? null : createHash('sha256').update(text).digest('hex'),
  );
  const rows = new Map<string, string>();
  encoded.forEach((text, i) => {
    const hash = hashes[i];
    if (hash) rows.set(hash, text);
  });
  if (rows.size > 0) {
    await db
      .insertInto('template_source')
      .values([...rows].map(([hash, text]) => ({ hash, encoded: text })))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }
  return hashes;
}

export async function loadSources(
  db: Kysely<Database>,
  hashes: readonly (string | null)[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(hashes.filter((h): h is string => h !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db.selectFrom('template_source').selectAll().where('hash', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.hash, r.encoded]));
}
