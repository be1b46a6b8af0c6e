/**
 * The leaked signing keys `cookie_unsign` tries: the wordlist nuclei embeds (cookiemonster's, from
 * Flask-Unsign; origin and license in data/README.md). One key a line, base64 encoded so that any
 * bytes can be a key; blank lines are skipped.
 */
import { readFileSync } from 'node:fs';
import { isStdBase64 } from './cookie-encoding.js';

const WORDLIST = new URL('./data/cookie-signing-keys.txt', import.meta.url);

let keys: readonly Buffer[] | undefined;

/** The keys, read once on first use (the file is 1.8 MB and most scans never need it). */
export function signingKeys(): readonly Buffer[] {
  keys ??= parseWordlist(readFileSync(WORDLIST, 'latin1'));
  return keys;
}

/** Parses a wordlist; a line that is not base64 makes the whole list invalid, as in cookiemonster. */
export function parseWordlist(text: string): Buffer[] {
  const entries: Buffer[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!isStdBase64(line)) throw new Error(`line ${index + 1} of the signing-key list is not base64`);
    if (line !== '') entries.push(Buffer.from(line, 'base64'));
  }
  return entries;
}
