import type { ResultEvent } from './event.js';

/**
 * The event with `redact` applied to every string it holds, at any depth: request, response,
 * curl-command, matched-at, extracted-results, meta, host, url, … A secret can reach any of them (a
 * query secret is part of every URL, a reflected header lands in the body), so none is skipped.
 */
export function redactEvent(event: ResultEvent, redact: (text: string) => string): ResultEvent {
  return redactValue(event, redact) as ResultEvent;
}

function redactValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redactValue(item, redact);
    return out;
  }
  return value;
}
