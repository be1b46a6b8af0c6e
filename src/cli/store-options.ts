/**
 * The options of commands that touch the store. Kept apart from the store itself so that a
 * command's definition (what `--help` shows) loads without the database drivers.
 */
import { type Command, Option } from 'commander';

/** The team of commands run without `--team`; the store's `DEFAULT_TEAM` (a test keeps them equal). */
export const DEFAULT_TEAM_OPTION = 'default';

/** `--db URL`, on every command that touches the store. */
export function dbOption(): Option {
  return new Option(
    '--db <url>',
    'store: postgres://… or postgresql://… for PostgreSQL, else an SQLite file (sqlite:/file: prefix optional); default $KEYHOLE_DB, else .keyhole/keyhole.db',
  );
}

/** `--team NAME` on commands that record: the team is created on first use. */
export function teamOption(): Option {
  return new Option('--team <name>', 'team the data belongs to (created on first use)').default(
    DEFAULT_TEAM_OPTION,
  );
}

/** `--team NAME` on commands that use what was recorded: reading a team never creates it. */
export function existingTeamOption(): Option {
  return new Option('--team <name>', 'team whose data to use (it must exist)').default(DEFAULT_TEAM_OPTION);
}

/**
 * `flags` with `team` only when `--team` was given: a command that takes no team's data unless
 * asked (a scan with `--no-store`) can tell the default from a choice; it falls back to the default.
 */
export function givenTeam<T extends { readonly team?: string }>(command: Command, flags: T): T {
  if (command.getOptionValueSource('team') !== 'default') return flags;
  const { team: _default, ...rest } = flags;
  return rest as T;
}

/** The `--name` of what a command stores from a file (an import, an asset list) when none is given. */
export function nameOfFile(file: string): string {
  return file.split(/[\\/]/).at(-1) || file;
}
