import { pino } from 'pino';
import { buildApi } from '../../../api/index.js';
import { dashboard } from '../../../dashboard/index.js';
import { describeLocation } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { reasonOf } from '../../shared/errors.js';
import { withStore } from '../../shared/store.js';
import type { ServeFlags } from './command.js';
import { readTlsPair } from './tls.js';

/** `keyhole serve`: serves until SIGINT or SIGTERM; the exit code. */
export async function serve(options: ServeFlags, io: CliIo): Promise<number> {
  const tls = await readTlsPair(options.tlsCert, options.tlsKey, io.cwd);
  await withStore(io, options.db, { create: false }, async (store) => {
    const logger = pino({ level: options.logLevel }, { write: (line: string) => io.stdout.write(line) });
    const app = await buildApi({
      store,
      logger,
      rateLimit: options.rateLimit,
      cache: options.cache,
      ...(tls === undefined ? {} : { tls }),
    });
    await app.register(dashboard, { store });
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
    const port = typeof address === 'object' && address !== null ? address.port : options.port;
    logger.info(
      {
        url: `${tls === undefined ? 'http' : 'https'}://${options.host}:${port}`,
        store: describeLocation(store.location),
      },
      'listening',
    );
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    logger.info({ signal }, 'shutting down');
    await app.close();
    logger.info('stopped');
  });
  return ExitCode.ok;
}
