/**
 * Findings as a SARIF 2.1.0 log (`-se`, `findings export --format sarif`): one rule per template,
 * from its metadata, and one result per finding, located at the URL it matched. `security-severity`
 * follows nuclei's SARIF exporter, so code-scanning dashboards rank keyhole's findings as they rank
 * nuclei's; medium is a `warning` (nuclei says `note`, SARIF's level for low findings).
 */
import type { ResultEvent } from '../event/index.js';
import { findingTitle, matchedUrl } from './titles.js';

export interface ExportTool {
  readonly name: string;
  readonly version: string;
}

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

type Level = 'error' | 'warning' | 'note' | 'none';

/** nuclei's mapping: the SARIF level and the 0–10 `security-severity` GitHub reads. */
const SEVERITY_RATING: Record<string, { level: Level; rating: string }> = {
  critical: { level: 'error', rating: '9.4' },
  high: { level: 'error', rating: '8' },
  medium: { level: 'warning', rating: '5' },
  low: { level: 'note', rating: '2' },
  info: { level: 'none', rating: '1' },
};
const UNKNOWN_RATING = { level: 'none' as Level, rating: '0' };

/** The SARIF log of the events, as a JSON text. */
export function sarifExport(events: readonly ResultEvent[], tool: ExportTool): string {
  return `${JSON.stringify(sarifLog(events, tool), null, 2)}\n`;
}

export function sarifLog(events: readonly ResultEvent[], tool: ExportTool) {
  const rules: ReturnType<typeof ruleOf>[] = [];
  const ruleIndex = new Map<string, number>();
  const results = events.map((event) => {
    const id = event['template-id'];
    let index = ruleIndex.get(id);
    if (index === undefined) {
      index = rules.push(ruleOf(event)) - 1;
      ruleIndex.set(id, index);
    }
    return resultOf(event, index);
  });
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            fullName: `${tool.name} ${tool.version}`,
            semanticVersion: tool.version,
            rules,
          },
        },
        results,
      },
    ],
  };
}

function ruleOf(event: ResultEvent) {
  const info = event.info;
  const rating = ratingOf(info.severity);
  const help = [info.description, info.remediation, ...(info.reference ?? [])].filter(
    (text): text is string => text !== undefined && text.trim() !== '',
  );
  return {
    id: event['template-id'],
    ...(info.name === undefined || info.name === '' ? {} : { name: info.name }),
    shortDescription: { text: info.name || event['template-id'] },
    ...(info.description === undefined || info.description.trim() === ''
      ? {}
      : { fullDescription: { text: info.description.trim() } }),
    ...(help.length === 0 ? {} : { help: { text: help.join('\n\n') } }),
    ...(event['template-url'] === undefined ? {} : { helpUri: event['template-url'] }),
    defaultConfiguration: { level: rating.level },
    properties: {
      tags: ['security', ...(info.tags ?? [])],
      'security-severity': rating.rating,
      ...(info.severity === '' ? {} : { severity: info.severity }),
      ...(info.classification?.['cve-id'] ? { 'cve-id': info.classification['cve-id'] } : {}),
      ...(info.classification?.['cwe-id'] ? { 'cwe-id': info.classification['cwe-id'] } : {}),
    },
  };
}

function resultOf(event: ResultEvent, ruleIndex: number) {
  const url = matchedUrl(event);
  return {
    ruleId: event['template-id'],
    ruleIndex,
    kind: 'fail',
    level: ratingOf(event.info.severity).level,
    message: { text: findingTitle(event) },
    locations: [
      {
        physicalLocation: { artifactLocation: { uri: uriOf(url) } },
        message: { text: url },
      },
    ],
    ...(event['extracted-results'] === undefined || event['extracted-results'].length === 0
      ? {}
      : { properties: { 'extracted-results': event['extracted-results'] } }),
  };
}

function ratingOf(severity: string) {
  return SEVERITY_RATING[severity] ?? UNKNOWN_RATING;
}

/** SARIF wants a URI reference: a URL as the WHATWG parser writes it, else the text percent-encoded. */
function uriOf(text: string): string {
  try {
    return new URL(text).href;
  } catch {
    return encodeURI(text);
  }
}
