/**
 * The result event: what a template run reports, in nuclei's JSONL shape (the fields, their order
 * and omission rules), as the scanner writes it, the store keeps it and the API serves it; and its
 * redaction.
 */
export {
  type Classification,
  type EventInfo,
  type EventInteraction,
  isSeverity,
  type ResultEvent,
  SEVERITIES,
  type Severity,
} from './event.js';
export { redactEvent } from './redact.js';
export { serializeEvent } from './serialize.js';
