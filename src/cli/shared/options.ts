/**
 * Options and option readers several commands define alike. Kept apart from what the commands do
 * (the store, the HTTP client) so that a command's definition (what `--help` shows) loads without
 * them.
 */
import { type CommandUnknownOpts, type InferOptions, Option } from '@commander-js/extra-typings';

/** The flags object that the command a definition builds hands to its action, as its options type it. */
export type FlagsOf<Define extends (...args: never[]) => { opts(): unknown }> = ReturnType<
  ReturnType<Define>['opts']
>;

/** The flags object one option gives a command's action. */
export type OptionFlags<O> =
  O extends Option<infer Usage, infer Preset, infer Default, infer Coerce, infer Mandatory, infer Choices>
    ? InferOptions<Record<never, never>, Usage, Default, Coerce, Mandatory, Preset, Choices>
    : never;

/** `-t a -t b` → `[a, b]`. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `-sf a.yaml,b.yaml -sf c.yaml` → `[a.yaml, b.yaml, c.yaml]`. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').filter((f) => f !== '')];
}

/** The team of commands run without `--team`; the store's `DEFAULT_TEAM` (a test keeps them equal). */
export const DEFAULT_TEAM_OPTION = 'default';

/** `--db URL`, on every command that touches the store. */
export function dbOption() {
  return new Option(
    '--db <url>',
    'store: postgres://… or postgresql://… for PostgreSQL, else an SQLite file (sqlite:/file: prefix optional); default $KEYHOLE_DB, else .keyhole/keyhole.db',
  );
}

/** `--team NAME` on commands that record: the team is created on first use. */
export function teamOption() {
  return new Option('--team <name>', 'team the data belongs to (created on first use)').default(
    DEFAULT_TEAM_OPTION,
  );
}

/** `--team NAME` on commands that use what was recorded: reading a team never creates it. */
export function existingTeamOption() {
  return new Option('--team <name>', 'team whose data to use (it must exist)').default(DEFAULT_TEAM_OPTION);
}

/**
 * `flags` with `team` only when `--team` was given: a command that takes no team's data unless
 * asked (a scan with `--no-store`) can tell the default from a choice; it falls back to the default.
 */
export function givenTeam<T extends { readonly team?: string }>(
  command: CommandUnknownOpts,
  flags: T,
): Omit<T, 'team'> & { readonly team?: string } {
  if (command.getOptionValueSource('team') !== 'default') return flags;
  const { team: _default, ...rest } = flags;
  return rest;
}
