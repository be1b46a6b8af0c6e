import { Command, CommanderError, type OptionValues } from '@commander-js/extra-typings';
import { acceptSingleDashLongFlags, UnknownFlag } from './argv.js';
import { registerAssets } from './commands/assets/command.js';
import { registerDb } from './commands/db/command.js';
import { registerImport } from './commands/import/command.js';
import { registerKeys } from './commands/keys/command.js';
import { registerOast } from './commands/oast/command.js';
import { registerResults } from './commands/results/command.js';
import { registerRetest } from './commands/retest/command.js';
import { registerScan } from './commands/scan/command.js';
import { registerSecrets } from './commands/secrets/command.js';
import { registerServe } from './commands/serve/command.js';
import { registerTemplates } from './commands/templates/command.js';
import { registerWorker } from './commands/worker/command.js';
import { ExitCode, UserError } from './exit.js';
import type { CliIo } from './io.js';
import { messageOf } from './shared/errors.js';
import { KEYHOLE_VERSION } from './shared/version.js';

/**
 * What a command does, given its arguments and flags as commander read them, where to read and
 * write, and the command itself; its exit code.
 */
export type CommandWork<Args extends unknown[], Opts extends OptionValues, Global extends OptionValues> = (
  ...input: [...Args, Opts, CliIo, Command<Args, Opts, Global>]
) => Promise<number>;

/** Makes `command` run the work `load` loads, loading it only when the command runs. */
export type WorkLoader = <Args extends unknown[], Opts extends OptionValues, Global extends OptionValues>(
  command: Command<Args, Opts, Global>,
  load: () => Promise<NoInfer<CommandWork<Args, Opts, Global>>>,
) => void;

/** A command group adds its commands to the program, each with the module that does its work. */
export type CommandRegistrar = (program: Command, runs: WorkLoader) => void;

/**
 * The command groups, in the order `keyhole --help` lists them. Each defines its commands (flags,
 * help) here and loads what does the work (database drivers, the HTTP client, the API server) only
 * when one of its commands runs: `keyhole --version` and `--help` load none of it.
 */
const registrars: readonly CommandRegistrar[] = [
  registerScan,
  registerSecrets,
  registerTemplates,
  registerImport,
  registerAssets,
  registerResults,
  registerRetest,
  registerKeys,
  registerServe,
  registerWorker,
  registerOast,
  registerDb,
];

export function buildProgram(
  io: CliIo,
  setExit: (code: number) => void,
  writeErr: (text: string) => void = (text) => io.stderr.write(text),
): Command {
  const program = new Command('keyhole')
    .description('Authenticated vulnerability scanner: nuclei-format templates, secret files, stored results')
    .version(KEYHOLE_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr,
    })
    .exitOverride();
  const runs: WorkLoader = (command, load) => {
    command.action(async () => {
      const work = await load();
      setExit(await work(...command.processedArgs, command.opts(), io, command));
    });
  };
  for (const register of registrars) register(program, runs);
  return program;
}

/**
 * Runs the CLI and returns its exit code; never throws, never prints a stack trace. Every error
 * shown, commander's usage errors included, has the control characters of what it quotes escaped.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  let usageErrors = '';
  const program = buildProgram(
    io,
    (code) => {
      exitCode = code;
    },
    (text) => {
      usageErrors += text;
    },
  );
  try {
    await program.parseAsync(acceptSingleDashLongFlags(program, argv), { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; usage errors are printed below.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const source = await escaping();
    io.stderr.write(`error: ${source.printable(messageOf(error))}${suggestion(error, source)}\n`);
    return error instanceof UserError ? error.exitCode : ExitCode.failed;
  } finally {
    if (usageErrors !== '') io.stderr.write((await escaping()).printableLines(usageErrors));
  }
}

/** The flag of keyhole closest to an unknown one, as a hint. */
function suggestion(error: unknown, source: typeof import('../source/index.js')): string {
  // Short words are close to too many flags for a guess to help.
  if (!(error instanceof UnknownFlag) || error.flag.length < 5) return '';
  const match = source.closest(error.flag.replace(/^-+/, ''), error.known);
  return match === undefined ? '' : ` (did you mean -${match}?)`;
}

/** Loaded only when there is an error to show: starting keyhole loads the command definitions alone. */
function escaping(): Promise<typeof import('../source/index.js')> {
  return import('../source/index.js');
}
