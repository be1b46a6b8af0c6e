import type { ResultEvent } from './event.js';

/**
 * The event with `redact` applied to every string it holds, at any depth: request, response,
 * curl-command, matched-at, extracted-results, meta, host, url, … A secret can reach any of them (a
 * query secret is part of every URL, a reflected header lands in the body), so none is skipped.
 */
export function redactEvent(event: ResultEvent, redact: (text: string) => string): ResultEvent {
  return redactValue(event, redact) as ResultEvent;
}

/** The value with its strings redacted; a part in which nothing changed is the part itself, not a copy. */
function redactValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const redacted = redactValue(item, redact);
      if (redacted !== item) out ??= value.slice();
      if (out !== undefined) out[i] = redacted;
    }
    return out ?? value;
  }
  if (typeof value === 'object' && value !== null) {
    let out: Record<string, unknown> | undefined;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      const redacted = redactValue(item, redact);
      if (redacted !== item) out ??= { ...record };
      if (out !== undefined) out[key] = redacted;
    }
    return out ?? value;
  }
  return value;
}
