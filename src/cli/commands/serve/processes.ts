/**
 * `keyhole serve --processes N`: the first process forks N serving processes (Node's cluster,
 * which shares the listening port between them), keeps for them what must hold across
 * connections (see link.ts), logs for them where they listen and when they stop, replaces one that
 * ends unexpectedly, and stops them all on SIGINT or SIGTERM.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { RateLeases } from '../../../api/index.js';
import { Sessions } from '../../../dashboard/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import type { ServeFlags } from './command.js';
import { type Asks, answer, FLAGS_VARIABLE, type FromServing, isOurs, type Kept, type Stop } from './link.js';
import { serverUrl, stopRequested } from './listen.js';

/** More unexpected ends than this within {@link RESTART_WINDOW_MS} stop the server. */
const MOST_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

/** Serves with `options.processes` processes until SIGINT or SIGTERM. */
export async function serveProcesses(
  options: ServeFlags,
  io: CliIo,
  logger: Logger,
  store: string,
): Promise<void> {
  const flock = new Flock(options, io, logger);
  let port: number;
  try {
    port = await flock.start(options.processes);
  } catch (error) {
    await flock.stop();
    throw error;
  }
  logger.info(
    { url: serverUrl(options, options.tlsCert !== undefined, port), store, processes: options.processes },
    'listening',
  );
  const failure = await Promise.race([stopRequested(io).then(() => undefined), flock.failure]);
  logger.info('shutting down');
  await flock.stop();
  logger.info('stopped');
  if (failure !== undefined) throw failure;
}

/** The serving processes, and what the first process keeps for them. */
class Flock {
  private readonly kept: Kept;
  /** Those that said they listen: only they have the channel open to a stop. */
  private readonly listening = new Set<Worker>();
  private readonly exited = new Map<Worker, Promise<void>>();
  private readonly unexpectedEnds: number[] = [];
  private stopping = false;
  /** Whether all the first processes listened: only then is one that ends replaced. */
  private started = false;
  private fail: (error: UserError) => void = () => undefined;
  /** Settles when the processes keep ending, as a UserError to end the command with. */
  readonly failure = new Promise<UserError>((resolve) => {
    this.fail = resolve;
  });

  constructor(
    private readonly options: ServeFlags,
    private readonly io: CliIo,
    private readonly logger: Logger,
  ) {
    this.kept = { sessions: new Sessions(), rateLeases: new RateLeases(options.processes) };
    cluster.setupPrimary({
      exec: fileURLToPath(new URL('./process-main.js', import.meta.url)),
      args: [],
      cwd: io.cwd,
    });
    cluster.on('message', (worker, message: unknown) => {
      if (!isOurs(message) || message.keyhole !== 'asks') return;
      void answer(message as Asks, this.kept).then((answered) => {
        if (worker.isConnected()) worker.send(answered);
      });
    });
  }

  /** Forks `count` processes; the port they listen on once all do, or the first one's failure. */
  async start(count: number): Promise<number> {
    const ports = await Promise.all(Array.from({ length: count }, () => this.fork()));
    this.started = true;
    return ports[0] ?? this.options.port;
  }

  /** Tells every process to stop, and waits until all have ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const worker of this.listening) tellToStop(worker);
    await Promise.all(this.exited.values());
  }

  /** One serving process, resolved with its port once it listens, rejected if it cannot. */
  private fork(): Promise<number> {
    const worker = cluster.fork({
      ...this.io.env,
      [FLAGS_VARIABLE]: JSON.stringify(this.options),
    });
    let failed: UserError | undefined;
    const listening = new Promise<number>((resolve, reject) => {
      worker.on('message', (message: unknown) => {
        if (!isOurs(message)) return;
        const told = message as FromServing;
        if (told.keyhole === 'listening') {
          this.listening.add(worker);
          // Told to stop once it listens, if the server began stopping while it started.
          if (this.stopping) tellToStop(worker);
          resolve(told.port);
        }
        if (told.keyhole === 'failed') {
          failed = new UserError(
            told.message,
            told.exitCode === ExitCode.failed ? ExitCode.failed : ExitCode.usage,
          );
          reject(failed);
        }
      });
      worker.once('exit', (code, signal) =>
        reject(
          failed ??
            new UserError(
              `a serving process ended before it listened (${endOf(code, signal)})`,
              ExitCode.failed,
            ),
        ),
      );
    });
    this.exited.set(
      worker,
      new Promise((resolve) =>
        worker.once('exit', (code, signal) => {
          this.listening.delete(worker);
          this.exited.delete(worker);
          resolve();
          if (this.started && !this.stopping) this.replace(worker, failed?.message ?? endOf(code, signal));
        }),
      ),
    );
    return listening;
  }

  /** After an unexpected end: another process, unless they keep ending. */
  private replace(ended: Worker, reason: string): void {
    const at = Date.now();
    this.unexpectedEnds.push(at);
    while ((this.unexpectedEnds[0] ?? at) <= at - RESTART_WINDOW_MS) this.unexpectedEnds.shift();
    const pid = ended.process.pid;
    if (this.unexpectedEnds.length > MOST_RESTARTS) {
      this.logger.error({ process: pid, reason }, 'serving processes keep ending; stopping the server');
      this.fail(
        new UserError(
          `serving processes ended ${this.unexpectedEnds.length} times within a minute (the last: ${reason}); the server stopped`,
          ExitCode.failed,
        ),
      );
      return;
    }
    this.logger.error({ process: pid, reason }, 'a serving process ended unexpectedly; starting another');
    this.fork().catch(() => undefined);
  }
}

function tellToStop(worker: Worker): void {
  if (worker.isConnected()) worker.send({ keyhole: 'stop' } satisfies Stop);
}

function endOf(code: number | null, signal: string | null): string {
  return signal === null ? `exit code ${code}` : `signal ${signal}`;
}
