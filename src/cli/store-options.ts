/**
 * The options of commands that touch the store. Kept apart from the store itself so that a
 * command's definition (what `--help` shows) loads without the database drivers.
 */
import { Option } from 'commander';

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
