import { hostname } from 'node:os';
import { type Logger, pino } from 'pino';
import { buildApi, ScanRequestError } from '../../../api/index.js';
import { dashboard } from '../../../dashboard/index.js';
import { runRetestRequests } from '../../../queue/index.js';
import type { ScanSession } from '../../../scan/index.js';
import { describeLocation, type Finding, type Store } from '../../../store/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import { reasonOf } from '../../shared/errors.js';
import { runConfig } from '../../shared/request-config.js';
import { ScanOutput } from '../../shared/scan-output.js';
import { readSecrets } from '../../shared/session.js';
import { withStore } from '../../shared/store.js';
import { scanConfig } from '../scan/config.js';
import { templatesDirectory } from '../scan/library.js';
import type { ServeFlags } from './command.js';
import { type ServerScanOptions, ServerScans } from './scans.js';
import { entriesUsed, fileHolding, type KnownSecretFile, ServeSessions } from './sessions.js';
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
  const secretFiles = await knownSecretFiles(options.secrets ?? [], io, output);
  const templatesDir = await templatesDirectory(
    scanConfig(options.templatesDir === undefined ? {} : { templatesDir: options.templatesDir }),
    io,
  );
  const scans = { templatesDir, secretFiles };
  await withStore(io, options.db, { create: false }, async (store) => {
    const logger = pino({ level: options.logLevel }, { write: (line: string) => io.stdout.write(line) });
    if (store.engine === 'postgres') {
      await serveUntilStopped(io, store, options, logger, tls, { ...scans, sessions: undefined });
      return;
    }
    // Ctrl-C is this command's to handle: the sessions only stop with the server.
    const { interrupts: _caughtByServe, ...quiet } = io;
    const sessions = new ServeSessions(config, { io: quiet, output });
    try {
      await serveUntilStopped(io, store, options, logger, tls, { ...scans, sessions });
    } finally {
      await sessions.close();
    }
  });
  return ExitCode.ok;
}

/** What the server runs with: on SQLite sessions of its own for retests and scans; on PostgreSQL none. */
type Runner = Omit<ServerScanOptions, 'signal' | 'log' | 'sessions'> &
  ({ readonly sessions: ServeSessions } | { readonly sessions: undefined });

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

async function serveUntilStopped(
  io: CliIo,
  store: Store,
  options: ServeFlags,
  logger: Logger,
  tls: { cert: string; key: string } | undefined,
  runner: Runner,
): Promise<void> {
  const wakeUps = new WakeUps();
  const stop = new AbortController();
  const scans = new ServerScans(store, {
    ...runner,
    signal: stop.signal,
    log: { info: (text) => logger.info(text), error: (text) => logger.error(text) },
  });
  const retests = runner.sessions === undefined ? undefined : runner.sessions;
  const app = await buildApi({
    store,
    logger,
    rateLimit: options.rateLimit,
    cache: options.cache,
    ...(tls === undefined ? {} : { tls }),
    ...(retests === undefined ? {} : { onRetestQueued: () => wakeUps.wake() }),
    startScan: scans.start,
  });
  await app.register(dashboard, {
    store,
    onRetestQueued: () => wakeUps.wake(),
    rescan: (scanId: string, teamId: string) =>
      scans.rescan(scanId, teamId).catch((error: unknown) => {
        if (error instanceof ScanRequestError) return { error: error.message, status: error.status };
        throw error;
      }),
  });
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
  const running =
    retests === undefined
      ? Promise.resolve()
      : runRetestRequests(store, await retests.of(undefined), {
          runner: `serve:${hostname()}:${process.pid}`,
          concurrency: 1,
          hasSecrets: runner.secretFiles.length > 0,
          sessionFor: (finding, request) =>
            retestSession(store, runner.secretFiles, retests, finding, request.needsSecrets),
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
  await scans.stopped();
  logger.info('stopped');
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
