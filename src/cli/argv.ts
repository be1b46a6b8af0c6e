import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UserError } from './exit.js';
import { NUCLEI_FLAGS } from './nuclei-flags.js';

/** A single-dash word that is neither a flag of keyhole nor one of nuclei. */
export class UnknownFlag extends UserError {
  constructor(
    readonly flag: string,
    readonly known: readonly string[],
  ) {
    super(`unknown option '${flag}'`);
  }
}

/**
 * nuclei spells its long flags with one dash (`-sf`, `-secret-file`); commander reads `-sf` as
 * `-s -f`. Rewrites a single-dash word to the double-dash form when the program has a long option
 * of that name, so both spellings work. Any other single-dash word of more than one letter is never
 * split into short flags (`-tags` is not `-t ags`): a flag of nuclei that keyhole does not define is
 * refused as such, anything else as an unknown option. Option values, `-`, negative numbers and
 * everything after `--` are kept.
 */
export function acceptSingleDashLongFlags(program: CommandUnknownOpts, argv: readonly string[]): string[] {
  const { longNames, shortNames, takesValue } = keyholeFlags(program);
  let afterDoubleDash = false;
  let valueNext = false;
  return argv.map((arg) => {
    if (afterDoubleDash || valueNext) {
      valueNext = false;
      return arg;
    }
    if (arg === '--') {
      afterDoubleDash = true;
      return arg;
    }
    const match = /^(--?)([a-z][a-z0-9-]*)(=.*)?$/i.exec(arg);
    if (match === null) return arg;
    const [, dashes = '', name = '', value] = match;
    const known =
      dashes === '--' ||
      longNames.has(name) ||
      (name.length === 1 && (shortNames.has(name) || !nucleiNames.has(name)));
    if (!known) throw unsupported(name, [...longNames]);
    valueNext = value === undefined && takesValue.has(`${name.length === 1 ? '-' : '--'}${name}`);
    return dashes === '-' && name.length > 1 ? `-${arg}` : arg;
  });
}

/** The long and short names of every command's options, and the flags (`-u`, `--target`) that take a value. */
function keyholeFlags(program: CommandUnknownOpts) {
  const longNames = new Set<string>();
  const shortNames = new Set<string>();
  const takesValue = new Set<string>();
  const visit = (command: CommandUnknownOpts) => {
    for (const option of command.options) {
      for (const flag of option.flags.split(/[ ,|]+/)) {
        if (!flag.startsWith('-')) continue;
        if (flag.startsWith('--')) longNames.add(flag.slice(2));
        else shortNames.add(flag.slice(1));
        if (option.required || option.optional) takesValue.add(flag);
      }
    }
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  // commander's own: help on every command
  shortNames.add('h');
  longNames.add('help');
  return { longNames, shortNames, takesValue };
}

const nucleiNames = new Map<string, readonly [long: string, short?: string]>();
for (const flag of NUCLEI_FLAGS) {
  nucleiNames.set(flag[0], flag);
  if (flag[1] !== undefined) nucleiNames.set(flag[1], flag);
}

function unsupported(name: string, keyholeNames: readonly string[]): UserError {
  const nuclei = nucleiNames.get(name);
  if (nuclei === undefined) return new UnknownFlag(`-${name}`, keyholeNames);
  const [long, short] = nuclei;
  const alias = name === long ? short : long;
  const spelled = alias === undefined ? `-${name}` : `-${name} (-${alias})`;
  return new UserError(
    `${spelled} is a nuclei option keyhole does not support; keyhole help COMMAND lists the flags it takes`,
  );
}
