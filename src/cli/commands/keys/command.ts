import { type Command, Option } from '@commander-js/extra-typings';
import type { CommandRegistrar } from '../../program.js';
import { dbOption, type FlagsOf, teamOption } from '../../shared/options.js';

/** The store's key scopes, written out so that `--help` loads no database code (lazy.test.ts checks they agree). */
export const KEY_SCOPE_CHOICES = ['read', 'write'] as const;

const CREATE_HELP = `
The key is printed alone on stdout, so scripts can capture it; the rest goes to stderr.
Without --team the key belongs to the team "default", which is also where imports, asset
uploads and scans go when they are given no --team.
A key reads (--scope read, the default) or also writes (--scope write): uploads from nuclei
and httpx, triage, deleting scans and starting retests need a write key; a read key gets 403.

Examples:
  keyhole keys create --name ci
  keyhole keys create --name nuclei-upload --scope write
  API_KEY=$(keyhole keys create --name dashboard --team appsec)
`;

function defineCreate(keys: Command) {
  return keys
    .command('create')
    .description('create an API key and print it (once: only its hash is stored)')
    .requiredOption('--name <name>', 'what the key is for (shown by `keys list`)')
    .addOption(teamOption())
    .addOption(
      new Option('--scope <scope>', 'what the key may do: read, or write (uploads, triage, deletes, retests)')
        .choices(KEY_SCOPE_CHOICES)
        .default('read' as const),
    )
    .addOption(dbOption())
    .addHelpText('after', CREATE_HELP);
}

function defineList(keys: Command) {
  return keys.command('list').description('list API keys (never the keys themselves)').addOption(dbOption());
}

function defineRevoke(keys: Command) {
  return keys
    .command('revoke')
    .description('revoke an API key: requests with it get 401 from then on')
    .argument('<id>', 'the key id shown by `keys list`')
    .addOption(dbOption());
}

/** The flags of `keyhole keys create`, as its definition types them. */
export type CreateFlags = FlagsOf<typeof defineCreate>;

/** The flags of `keyhole keys list`, as its definition types them. */
export type ListFlags = FlagsOf<typeof defineList>;

/** The flags of `keyhole keys revoke`, as its definition types them. */
export type RevokeFlags = FlagsOf<typeof defineRevoke>;

/** `keyhole keys create|list|revoke`. */
export const registerKeys: CommandRegistrar = (program, runs) => {
  const keys = program
    .command('keys')
    .description('API keys for `keyhole serve`; each key sees only its team');
  runs(defineCreate(keys), async () => (await import('./create.js')).createKey);
  runs(defineList(keys), async () => (await import('./list.js')).listKeys);
  runs(defineRevoke(keys), async () => (await import('./revoke.js')).revokeKey);
};
