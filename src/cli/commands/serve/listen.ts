import type { FastifyInstance } from 'fastify';
import { UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { reasonOf } from '../../shared/errors.js';
import type { ServeFlags } from './command.js';

/** Listens as `--host` and `--port` say; the port listened on. */
export async function listen(app: FastifyInstance, options: ServeFlags): Promise<number> {
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE') {
      throw new UserError(`port ${options.port} on ${options.host} is in use; choose another with --port`);
    }
    throw new UserError(`cannot listen on ${options.host}:${options.port}: ${reasonOf(error)}`);
  }
  const address = app.server.address();
  return typeof address === 'object' && address !== null ? address.port : options.port;
}

/** The URL the server answers at, as its logs give it. */
export function serverUrl(options: ServeFlags, tls: boolean, port: number): string {
  return `${tls ? 'https' : 'http'}://${options.host}:${port}`;
}

/** Resolves on SIGINT or SIGTERM (the command's interrupts when it has them: a test sends its own). */
export function stopRequested(io: CliIo): Promise<void> {
  const { interrupts } = io;
  return new Promise((resolve) => {
    if (interrupts === undefined) {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
      return;
    }
    const release = interrupts.on(() => {
      release();
      resolve();
    });
  });
}
