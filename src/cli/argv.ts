import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/**
 * nuclei spells its long flags with one dash (`-sf`, `-secret-file`); commander reads `-sf` as
 * `-s -f`. Rewrites a single-dash word to the double-dash form when the program has a long option
 * of that name, so both spellings work; anything else (values, `-`, negative numbers) is kept.
 */
export function acceptSingleDashLongFlags(program: CommandUnknownOpts, argv: readonly string[]): string[] {
  const longNames = new Set<string>();
  const visit = (command: CommandUnknownOpts) => {
    for (const option of command.options) {
      for (const flag of option.flags.split(/[ ,|]+/))
        if (flag.startsWith('--')) longNames.add(flag.slice(2));
    }
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  let afterDoubleDash = false;
  return argv.map((arg) => {
    if (arg === '--') afterDoubleDash = true;
    const match = /^-([a-z][a-z0-9-]+)(=.*)?$/i.exec(arg);
    if (afterDoubleDash || match === null || !longNames.has(match[1] ?? '')) return arg;
    return `-${arg}`;
  });
}
