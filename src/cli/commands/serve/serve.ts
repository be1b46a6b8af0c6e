import { hostname } from 'node:os';
import { type Logger, pino } from 'pino';
import { buildApi } from '../../../api/index.js';
import { dashboard } from '../../../dashboard/index.js';
import { runRetestRequests } from '../../../queue/index.js';
import type { ScanSession } from '../../../scan/index.js';
import { describeLocation, type Store } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { reasonOf } from '../../shared/errors.js';
import { runConfig } from '../../shared/request-config.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { readSecrets, withCommandSession } from '../../shared/session.js';
import { withStore } from '../../shared/store.js';
import type { ServeFlags } from './command.js';
import { readTlsPair } from './tls.js';

/** `keyhole serve`: serves until SIGINT or SIGTERM; the exit code. */
export async function serve(options: ServeFlags, io: CliIo): Promise<number> {
  const tls = await readTlsPair(options.tlsCert, options.tlsKey, io.cwd);
  const config = runConfig({
    ...(options.secrets === undefined ? {} : { secretFile: options.secrets }),
    silent: true,
  });
  const output = new ScanOutput(io, { jsonl: false, silent: false, matcherStatus: false, output: undefined });
  // The secret files are checked before the store is opened: a usage error opens nothing.
  const secrets = await readSecrets(config, io, output);
  await withStore(io, options.db, { create: false }, async (store) => {
    const logger = pino({ level: options.logLevel }, { write: (line: string) => io.stdout.write(line) });
    if (store.engine === 'postgres') {
      if (secrets !== undefined)
        logger.warn('--secrets is for SQLite stores: on PostgreSQL, keyhole worker -sf runs the retests');
      await serveUntilStopped(io, store, options, logger, tls, undefined);
      return;
    }
    // Ctrl-C is this command's to handle: the retest session only stops with the server.
    const { interrupts: _caughtByServe, ...quiet } = io;
    await withCommandSession(config, secrets, { io: quiet, output }, undefined, (session) =>
      serveUntilStopped(io, store, options, logger, tls, { session, hasSecrets: secrets !== undefined }),
    );
  });
  return ExitCode.ok;
}

interface InProcessRetests {
  readonly session: ScanSession;
  readonly hasSecrets: boolean;
}

async function serveUntilStopped(
  io: CliIo,
  store: Store,
  options: ServeFlags,
  logger: Logger,
  tls: { cert: string; key: string } | undefined,
  retests: InProcessRetests | undefined,
): Promise<void> {
  const wakeUps = new WakeUps();
  const app = await buildApi({
    store,
    logger,
    rateLimit: options.rateLimit,
    cache: options.cache,
    ...(tls === undefined ? {} : { tls }),
    ...(retests === undefined ? {} : { onRetestQueued: () => wakeUps.wake() }),
  });
  await app.register(dashboard, { store, onRetestQueued: () => wakeUps.wake() });
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
  const stop = new AbortController();
  const running =
    retests === undefined
      ? Promise.resolve()
      : runRetestRequests(store, retests.session, {
          runner: `serve:${hostname()}:${process.pid}`,
          concurrency: 1,
          hasSecrets: retests.hasSecrets,
          signal: stop.signal,
          pollMs: 5_000,
          woken: () => wakeUps.next(),
          log: {
            info: (text) => logger.info(text),
            error: (text) => logger.error(text),
          },
        });
  await stopRequested(io);
  logger.info('shutting down');
  stop.abort(new Error('shutting down'));
  wakeUps.wake();
  await app.close();
  await running;
  logger.info('stopped');
}

/** Resolves on SIGINT or SIGTERM (the command's interrupts when it has them: a test sends its own). */
function stopRequested(io: CliIo): Promise<void> {
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

/** Wakes the retest runner when the API queues a retest, instead of waiting for its next poll. */
class WakeUps {
  private waiting: (() => void)[] = [];

  next(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
