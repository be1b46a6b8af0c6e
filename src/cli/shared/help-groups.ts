/**
 * `--help` of the commands that scan, with the options under nuclei's headings (Target, Templates,
 * Filtering, Output, Configurations, Rate-Limit, Optimizations, Debug, Statistics) and keyhole's
 * own (Secrets, Store), so a nuclei user finds a flag where nuclei's help has it.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** Each heading with the long names (without dashes) of the options under it, in nuclei's order. */
const GROUPS: readonly (readonly [string, readonly string[]])[] = [
  ['Target:', ['target', 'list', 'asset', 'scan']],
  ['Templates:', ['templates', 'templates-dir', 'tl', 'template-display', 'strict']],
  [
    'Filtering:',
    [
      'tags',
      'exclude-tags',
      'include-tags',
      'template-id',
      'exclude-id',
      'include-templates',
      'exclude-templates',
      'severity',
      'exclude-severity',
      'type',
      'author',
      'template-condition',
    ],
  ],
  [
    'Output:',
    [
      'output',
      'silent',
      'no-color',
      'jsonl',
      'matcher-status',
      'markdown-export',
      'sarif-export',
      'json-export',
      'no-redact',
    ],
  ],
  ['Secrets:', ['secret-file', 'prefetch-secrets']],
  [
    'Configurations:',
    [
      'header',
      'var',
      'follow-redirects',
      'follow-host-redirects',
      'max-redirects',
      'disable-redirects',
      'sni',
      'attack-type',
      'response-size-read',
      'proxy',
      'resume',
    ],
  ],
  [
    'Interactsh:',
    [
      'interactsh-server',
      'interactsh-token',
      'interactions-cache-size',
      'interactions-eviction',
      'interactions-poll-duration',
      'interactions-cooldown-period',
      'no-interactsh',
      'oast-listen',
      'oast-domain',
      'oast-dns-listen',
      'oast-https-listen',
      'oast-smtp-listen',
      'oast-tls-cert',
      'oast-tls-key',
    ],
  ],
  ['Rate-Limit:', ['rate-limit', 'bulk-size', 'concurrency']],
  ['Optimizations:', ['timeout', 'retries', 'max-host-error', 'no-mhe', 'stop-at-first-match']],
  ['Debug:', ['debug', 'debug-req', 'debug-resp', 'verbose']],
  ['Statistics:', ['stats', 'stats-interval', 'stats-json']],
  ['Store:', ['name', 'no-store', 'rescan', 'queue', 'chunk-size', 'team', 'db']],
];

/**
 * Puts each option of `command` named in {@link GROUPS} under its heading, the headings in nuclei's
 * order (commander lists groups in the order of their first option); the others follow, under
 * `Options:`. Only the help changes: commander finds options by name, not by position.
 */
export function groupHelp<C extends CommandUnknownOpts>(command: C): C {
  type Option = C['options'][number];
  const rank = new Map<string, number>();
  for (const [index, [, names]] of GROUPS.entries()) for (const name of names) rank.set(name, index);
  const rankOf = (option: Option) => rank.get(option.long?.replace(/^--/, '') ?? '') ?? GROUPS.length;
  // The typings make the list read-only; it is commander's own array, and only its order changes.
  (command.options as Option[]).sort((a, b) => rankOf(a) - rankOf(b));
  for (const option of command.options) {
    const group = GROUPS[rankOf(option)];
    if (group !== undefined) option.helpGroup(group[0]);
  }
  return command;
}
