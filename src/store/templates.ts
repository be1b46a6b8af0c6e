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

/**
 * Sources read before, by hash: a hash is the SHA-256 of its text, so what it names never changes
 * in any store, and a page of findings or results need not read the same few templates again.
 */
const known = new Map<string, string>();
let knownBytes = 0;
const KNOWN_MAX_BYTES = 16 * 1024 * 1024;

export async function loadSources(
  db: Kysely<Database>,
  hashes: readonly (string | null)[],
): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const wanted: string[] = [];
  for (const hash of new Set(hashes)) {
    if (hash === null) continue;
    const text = known.get(hash);
    if (text === undefined) wanted.push(hash);
    else sources.set(hash, text);
  }
  if (wanted.length === 0) return sources;
  const rows = await db.selectFrom('template_source').selectAll().where('hash', 'in', wanted).execute();
  for (const row of rows) {
    sources.set(row.hash, row.encoded);
    remember(row.hash, row.encoded);
  }
  return sources;
}

function remember(hash: string, text: string): void {
  if (text.length > KNOWN_MAX_BYTES / 16) return;
  while (knownBytes + text.length > KNOWN_MAX_BYTES && known.size > 0) {
    const [oldest, oldText] = known.entries().next().value as [string, string];
    known.delete(oldest);
    knownBytes -= oldText.length;
  }
  known.set(hash, text);
  knownBytes += text.length;
}
