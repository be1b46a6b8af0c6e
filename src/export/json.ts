import { type ResultEvent, serializeEvent } from '../event/index.js';

/** Findings as one JSON array (`-je`, `findings export --format json`), each event as in JSONL. */
export function jsonExport(events: readonly ResultEvent[]): string {
  if (events.length === 0) return '[]\n';
  return `[\n${events.map(serializeEvent).join(',\n')}\n]\n`;
}
