import { hostname } from 'node:os';
import { type Logger, pino } from 'pino';
import { buildApi, ScanRequestError } from '../../../api/index.js';
import { dashboard } from '../../../dashboard/index.js';
import { runRetestRequests } from '../../../queue/index.js';
import type { ScanSession } from '../../../scan/index.js';
import { describeLocation, type Finding, type Store } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { runConfig } from '../../shared/request-config.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { readSecrets } from '../../shared/session.js';
import { storeLocation, withStore } from '../../shared/store.js';
import { scanConfig } from '../scan/config.js';
import { templatesDirectory } from '../scan/library.js';
import type { ServeFlags } from './command.js';
import type { FirstProcess } from './link.js';
import { listen, serverUrl, stopRequested } from './listen.js';
import { serveProcesses } from './processes.js';
import { ServerScans } from './scans.js';
import { entriesUsed, fileHolding, type KnownSecretFile, ServeSessions } from './sessions.js';
import { readTlsPair } from './tls.js';

/** `keyhole serve`: serves until SIGINT or SIGTERM; the exit code. */
export async function serve(options: ServeFlags, io: CliIo): Promise<number> {
  if (options.processes > 1) requireSharedStore(options, io);
  const prepared = await prepareServe(options, io);
  await withStore(io, options.db, { create: false }, async (store) => {
    const logger = serveLogger(options, io);
    if (options.processes > 1) {
      await serveProcesses(options, io, logger, describeLocation(store.location));
      return;
    }
    if (store.engine === 'postgres') {
      await serveAlone(io, store, options, logger, prepared);
      return;
    }
    // Ctrl-C is this command's to handle: the sessions only stop with the server.
    const { interrupts: _caughtByServe, ...quiet } = io;
    const sessions = new ServeSessions(prepared.config, { io: quiet, output: prepared.output });
    try {
      await serveAlone(io, store, options, logger, { ...prepared, sessions });
    } finally {
      await sessions.close();
    }
  });
  return ExitCode.ok;
}

/** One process serving until SIGINT or SIGTERM. */
async function serveAlone(io: CliIo, store: Store, options: ServeFlags, logger: Logger, runner: Runner) {
  const server = await startServer(store, options, logger, runner, undefined);
  await stopRequested(io);
  await server.stop();
}

/**
 * One of the processes of `keyhole serve --processes N` (PostgreSQL only): serves on the port the
 * first process shares, with the dashboard's sessions and the keys' request counts it keeps, until
 * it says stop.
 */
export async function serveAsProcess(options: ServeFlags, io: CliIo, link: FirstProcess): Promise<void> {
  const prepared = await prepareServe(options, io);
  await withStore(io, options.db, { create: false }, async (store) => {
    if (store.engine !== 'postgres') throw sharedStoreNeeded(options, describeLocation(store.location));
    const logger = serveLogger(options, io);
    const server = await startServer(store, options, logger, prepared, link);
    link.listening(server.port);
    await link.stopRequested();
    await server.stop();
  });
}

/** What every serving process reads before it opens the store: a usage error opens nothing. */
interface Prepared {
  readonly tls: { cert: string; key: string } | undefined;
  readonly config: ReturnType<typeof runConfig>;
  readonly output: ScanOutput;
  readonly templatesDir: string | undefined;
  readonly secretFiles: readonly KnownSecretFile[];
}

async function prepareServe(options: ServeFlags, io: CliIo): Promise<Prepared> {
  const tls = await readTlsPair(options.tlsCert, options.tlsKey, io.cwd);
  const config = runConfig({
    ...(options.secrets === undefined ? {} : { secretFile: options.secrets }),
    silent: true,
  });
  const output = new ScanOutput(io, { jsonl: false, silent: false, matcherStatus: false, output: undefined });
  const secretFiles = await knownSecretFiles(options.secrets ?? [], io, output);
  const templatesDir = await templatesDirectory(
    scanConfig(options.templatesDir === undefined ? {} : { templatesDir: options.templatesDir }),
    io,
  );
  return { tls, config, output, templatesDir, secretFiles };
}

function serveLogger(options: ServeFlags, io: CliIo): Logger {
  return pino({ level: options.logLevel }, { write: (line: string) => io.stdout.write(line) });
}

/** Several processes share a store only on PostgreSQL: refused before anything is read. */
function requireSharedStore(options: ServeFlags, io: CliIo): void {
  const location = storeLocation(options.db, io);
  if (location.engine !== 'postgres') throw sharedStoreNeeded(options, describeLocation(location));
}

function sharedStoreNeeded(options: ServeFlags, store: string): UserError {
  return new UserError(
    `--processes ${options.processes} needs a PostgreSQL store (${store} is not one): on SQLite one process serves, and runs the scans and retests asked for through the API; give --db postgres://… (or set KEYHOLE_DB), or leave out --processes`,
  );
}

/** What the server runs with: on SQLite sessions of its own for retests and scans; on PostgreSQL none. */
type Runner = Prepared & { readonly sessions?: ServeSessions };

/** A server listening: its port, and how to stop it after the requests in flight. */
interface Started {
  readonly port: number;
  stop(): Promise<void>;
}

/** Each file of `--secrets` on its own, so that a scan started through the API names one. */
async function knownSecretFiles(
  files: readonly string[],
  io: CliIo,
  output: ScanOutput,
): Promise<KnownSecretFile[]> {
  const known: KnownSecretFile[] = [];
  for (const given of files) {
    const secrets = await readSecrets({ secretFiles: [given] }, io, output);
    if (secrets !== undefined) known.push({ given, secrets });
  }
  return known;
}

/**
 * The API and the dashboard over `store`, listening; on SQLite also this process's retest runner.
 * Alone (`shared` undefined) it keeps its own sessions and request counts and logs where it
 * listens; as one of several processes, the first process keeps them and logs for all.
 */
async function startServer(
  store: Store,
  options: ServeFlags,
  logger: Logger,
  runner: Runner,
  shared: FirstProcess | undefined,
): Promise<Started> {
  const wakeUps = new WakeUps();
  const stop = new AbortController();
  const { tls, templatesDir, secretFiles, sessions: retests } = runner;
  const scans = new ServerScans(store, {
    templatesDir,
    secretFiles,
    sessions: retests,
    signal: stop.signal,
    log: { info: (text) => logger.info(text), error: (text) => logger.error(text) },
  });
  const app = await buildApi({
    store,
    logger,
    rateLimit: options.rateLimit,
    ...(shared === undefined ? {} : { rateCounts: shared.rateCounts }),
    cache: options.cache,
    ...(tls === undefined ? {} : { tls }),
    ...(retests === undefined ? {} : { onRetestQueued: () => wakeUps.wake() }),
    startScan: scans.start,
  });
  await app.register(dashboard, {
    store,
    ...(shared === undefined ? {} : { sessions: shared.sessions }),
    onRetestQueued: () => wakeUps.wake(),
    rescan: (scanId: string, teamId: string) =>
      scans.rescan(scanId, teamId).catch((error: unknown) => {
        if (error instanceof ScanRequestError) return { error: error.message, status: error.status };
        throw error;
      }),
  });
  const port = await listen(app, options);
  if (shared === undefined) {
    logger.info(
      { url: serverUrl(options, tls !== undefined, port), store: describeLocation(store.location) },
      'listening',
    );
  }
  const running =
    retests === undefined
      ? Promise.resolve()
      : runRetestRequests(store, await retests.of(undefined), {
          runner: `serve:${hostname()}:${process.pid}`,
          concurrency: 1,
          hasSecrets: secretFiles.length > 0,
          sessionFor: (finding, request) =>
            retestSession(store, secretFiles, retests, finding, request.needsSecrets),
          signal: stop.signal,
          pollMs: 5_000,
          woken: () => wakeUps.next(),
          log: {
            info: (text) => logger.info(text),
            error: (text) => logger.error(text),
          },
        });
  return {
    port,
    async stop() {
      if (shared === undefined) logger.info('shutting down');
      stop.abort(new Error('shutting down'));
      wakeUps.wake();
      await app.close();
      await running;
      await scans.stopped();
      if (shared === undefined) logger.info('stopped');
    },
  };
}

/**
 * A finding is retested in the session of the secret file its scan used (the entries it planned or
 * sent secrets with); one found without a secret in the session without secrets.
 */
async function retestSession(
  store: Store,
  files: readonly KnownSecretFile[],
  sessions: ServeSessions,
  finding: Finding,
  needsSecrets: boolean,
): Promise<ScanSession | { refused: string }> {
  const authentication = (await store.authentication.of([finding.scanId])).get(finding.scanId);
  const used = entriesUsed(authentication);
  const cannot = `finding ${finding.id} cannot be retested here`;
  if (needsSecrets && used.length === 0)
    return {
      refused: `${cannot}: it was found with a secret, but its scan recorded no secret-file entry, so which file is not known; retest it with keyhole retest ${finding.id} -sf FILE`,
    };
  const held = fileHolding(files, used);
  if ('missing' in held) return { refused: `${cannot}: ${held.missing}` };
  return sessions.of(held.file);
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
