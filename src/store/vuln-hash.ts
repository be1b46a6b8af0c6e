import { createHash } from 'node:crypto';
import { isSeverity, type ResultEvent, type Severity } from '../event/index.js';

/** A result event as nuclei may write it, with the fields the hash reads beyond the declared ones. */
export type HashedEvent = Pick<
  ResultEvent,
  'template-id' | 'matched-at' | 'matcher-name' | 'extractor-name' | 'extracted-results' | 'type'
> & { readonly req_url_pattern?: unknown };

/**
 * The vuln hash of a matched result, computed as ProjectDiscovery's agent computes it
 * (`calculateVulnHashFromMatch`), so the same finding gets the same hash in both systems:
 * MD5, lowercase hex, over the plain concatenation (no separators) of
 *   1. `matched-at` — or, for an http event whose `req_url_pattern` holds `{{` placeholders,
 *      `scheme://host` of `matched-at` followed by that pattern (dynamic parts removed);
 *   2. `template-id`;
 *   3. `matcher-name` (when not empty);
 *   4. `extractor-name` (when not empty);
 *   5. each of `extracted-results`, in order.
 * Only matched events are findings, so the agent's rebuilding of `matched-at` for unmatched
 * events is not needed here.
 */
export function vulnHash(event: HashedEvent): string {
  const md5 = createHash('md5');
  md5.update(matchedPart(event), 'utf8');
  md5.update(event['template-id'], 'utf8');
  if (event['matcher-name']) md5.update(event['matcher-name'], 'utf8');
  if (event['extractor-name']) md5.update(event['extractor-name'], 'utf8');
  for (const extracted of event['extracted-results'] ?? []) md5.update(extracted, 'utf8');
  return md5.digest('hex');
}

function matchedPart(event: HashedEvent): string {
  const matched = event['matched-at'] ?? '';
  const pattern = event.req_url_pattern;
  if (event.type !== 'http' || typeof pattern !== 'string' || !pattern.includes('{{')) return matched;
  // Scheme and host as Go's url.Parse splits them: case and port kept as written, userinfo dropped.
  const parts = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^/?#@]*@)?([^/?#]*)/.exec(matched);
  return parts === null ? matched : `${parts[1]}://${parts[2]}${pattern}`;
}

/** The finding's severity: the template's, or `unknown` when it gives none. */
export function severityOf(event: Pick<ResultEvent, 'info'>): Severity {
  const severity = event.info.severity;
  return isSeverity(severity) ? severity : 'unknown';
}

/** The finding's target: the event's host without a trailing dot, else where it matched. */
export function targetOf(event: Pick<ResultEvent, 'host' | 'matched-at' | 'url'>): string {
  const host = event.host ?? '';
  if (host !== '') return host.endsWith('.') ? host.slice(0, -1) : host;
  return event['matched-at'] ?? event.url ?? '';
}
