/**
 * The scan sessions `keyhole serve` runs scans and retests in (SQLite): one per file of `--secrets`,
 * holding that file only, and one without secrets. A scan or retest gets the session of the file
 * it names, so a secret goes only to the scans that asked for its file. Each session is opened when
 * first needed, kept for the next scans (their logins are reused), and closed when the server stops.
 */
import type { ScanSession } from '../../../scan/index.js';
import { entriesOf } from '../../../secretfile/index.js';
import type { AuthEntry, ScanAuthentication } from '../../../store/index.js';
import type { CliIo } from '../../io.js';
import type { RunConfig } from '../../shared/request-config.js';
import type { ScanOutput } from '../../shared/scan-output.js';
import { type LoadedSecrets, withCommandSession } from '../../shared/session.js';

/** A file of `serve --secrets`, as given there, with what it holds. */
export interface KnownSecretFile {
  readonly given: string;
  readonly secrets: LoadedSecrets;
}

/** Where scans and retests get their session: the one of a secret file, or (undefined) none. */
export interface SessionSource {
  of(file: KnownSecretFile | undefined): Promise<ScanSession>;
}

interface OpenSession {
  readonly ready: Promise<ScanSession>;
  readonly release: () => void;
  readonly ended: Promise<unknown>;
}

export class ServeSessions implements SessionSource {
  private readonly open = new Map<KnownSecretFile | undefined, OpenSession>();
  private closing = false;

  constructor(
    private readonly config: RunConfig,
    private readonly context: { readonly io: CliIo; readonly output: ScanOutput },
  ) {}

  of(file: KnownSecretFile | undefined): Promise<ScanSession> {
    if (this.closing) return Promise.reject(new Error('the server is stopping'));
    let session = this.open.get(file);
    if (session === undefined) {
      session = this.opened(file?.secrets);
      this.open.set(file, session);
    }
    return session.ready;
  }

  /** Closes every session opened; resolves once they are closed. */
  async close(): Promise<void> {
    this.closing = true;
    for (const session of this.open.values()) session.release();
    await Promise.allSettled([...this.open.values()].map((s) => s.ended));
  }

  private opened(secrets: LoadedSecrets | undefined): OpenSession {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let deliver: (session: ScanSession) => void = () => undefined;
    let fail: (error: unknown) => void = () => undefined;
    const ready = new Promise<ScanSession>((resolve, reject) => {
      deliver = resolve;
      fail = reject;
    });
    const ended = withCommandSession(this.config, secrets, this.context, undefined, async (session) => {
      deliver(session);
      await released;
    }).catch(fail);
    return { ready, release, ended };
  }
}

/** The entries a scan planned or used (its authentication as stored), by fingerprint. */
export function entriesUsed(authentication: ScanAuthentication | undefined): AuthEntry[] {
  return (authentication?.entries ?? []).filter(
    (e) => e.fingerprint !== '' && (e.planned || e.requests > 0 || e.logins > 0 || e.refused > 0),
  );
}

/**
 * The secret file that holds every entry given: matched by fingerprint (kind, types and scope), and
 * among several such files the one whose entries also bear the same labels (which name the file),
 * since two files may hold entries of one kind and scope with different secrets. Undefined when
 * there are none to hold (the session without secrets fits); otherwise a sentence saying why no
 * file fits.
 */
export function fileHolding(
  files: readonly KnownSecretFile[],
  entries: readonly AuthEntry[],
): { readonly file: KnownSecretFile | undefined } | { readonly missing: string } {
  if (entries.length === 0) return { file: undefined };
  const holding = files.filter((file) => holdsAll(file, entries, (e) => e.fingerprint));
  const named = holding.find((file) => holdsAll(file, entries, (e) => `${e.fingerprint} ${e.label}`));
  const file = named ?? (holding.length === 1 ? holding[0] : undefined);
  if (file !== undefined) return { file };
  const labels = entries.map((e) => `${e.label} (${e.types.join(', ')} for ${e.scope})`).join(', ');
  if (holding.length > 1)
    return {
      missing: `its secrets (${labels}) are in several of the files given to keyhole serve --secrets (${holding.map((f) => f.given).join(', ')}), none of them the one it used`,
    };
  return {
    missing: `its secrets (${labels}) are not all in one of the files given to keyhole serve --secrets; restart it with that file`,
  };
}

function holdsAll(
  file: KnownSecretFile,
  entries: readonly AuthEntry[],
  key: (e: AuthEntry) => string,
): boolean {
  const held = new Set(entriesOf(file.secrets.set).map(key));
  return entries.every((e) => held.has(key(e)));
}
