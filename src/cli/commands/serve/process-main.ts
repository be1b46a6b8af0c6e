/**
 * A serving process of `keyhole serve --processes N`, forked by the first (see processes.ts). Its
 * flags come as JSON in the environment; what goes wrong before it listens is told to the first
 * process, which reports it once for all.
 */
import { type Channel, FLAGS_VARIABLE, LinkToFirst } from './link.js';

// Made before the server's modules load, so that no message from the first process is missed.
const link = new LinkToFirst(process as unknown as Channel);
// Ctrl-C reaches every process of the terminal's group: the first process orders the stop.
process.on('SIGINT', () => undefined);
// SIGTERM sent to this process alone stops it as the first process would.
process.once('SIGTERM', () => link.stop());

const { ExitCode, UserError } = await import('../../exit.js');
const { reasonOf } = await import('../../shared/errors.js');
const { processIo } = await import('../../io.js');
const { serveAsProcess } = await import('./serve.js');
const flags = JSON.parse(process.env[FLAGS_VARIABLE] ?? '{}');
// The first process read the same files and printed their warnings once; failures are told to it.
const { interrupts: _orderedByTheFirst, ...io } = {
  ...processIo(),
  stderr: { write: () => undefined, isTTY: false },
};
try {
  await serveAsProcess(flags, io, link);
} catch (error) {
  const [message, exitCode] =
    error instanceof UserError ? [error.message, error.exitCode] : [reasonOf(error), ExitCode.failed];
  process.exitCode = exitCode;
  await link.failed(message, exitCode);
}
process.disconnect?.();
