import type { ResultEvent } from '../event/index.js';

/** nuclei's one-line summary of a finding: `Name (template-id:matcher) found on host`. */
export function findingTitle(event: ResultEvent): string {
  return `${event.info.name || event['template-id']} (${matchedTemplateName(event)}) found on ${hostOf(event)}`;
}

/** The template id with the matcher and extractor that fired, as nuclei names a finding. */
export function matchedTemplateName(event: ResultEvent): string {
  return [event['template-id'], event['matcher-name'], event['extractor-name']]
    .filter((part) => part !== undefined && part !== '')
    .join(':');
}

/** Where the finding was found: the URL it matched, else the URL asked, else the host. */
export function matchedUrl(event: ResultEvent): string {
  return event['matched-at'] || event.url || event.host || '';
}

export function hostOf(event: ResultEvent): string {
  return event.host || event.url || event['matched-at'] || '';
}
