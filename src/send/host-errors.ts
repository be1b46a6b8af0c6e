import { TransportError } from '../http/index.js';
import { type Interceptor, type Outgoing, Refused } from './dispatch.js';
import { urlOf } from './wire.js';

/**
 * Failures that say the host itself is not answering: no connection, or no answer in time. A
 * connection that breaks once open is not counted (nuclei does not count a reset either): the host
 * answered something.
 */
const UNRESPONSIVE = new Set(['connect', 'timeout']);

/** Failures after which trying the host again cannot help: its name does not resolve. */
const PERMANENT_CODES = new Set(['ENOTFOUND']);

/** A host given up on, as the listener hears of it once. */
export interface SkippedHost {
  /** `host:port`. */
  readonly host: string;
  /** The failures in a row that made it skipped (1 for a name that does not resolve). */
  readonly errors: number;
  /** The last failure's message. */
  readonly cause: string;
}

/** A request not sent because its host was given up on (`-mhe`). */
export class HostSkipped extends Refused {}

/**
 * `-mhe`, as nuclei's host errors cache: a host (`host:port`) whose requests failed in transport
 * `max` times in a row — any answer in between starts the count again — is skipped for the rest of
 * the session: its requests fail at once as refused, without a rate token or a connection. A name
 * that does not resolve is skipped after its first failure. A request counts once, after its
 * retries (this sits outside `retrying`); a stopped scan's aborted requests do not count.
 */
export class HostErrorBudget {
  private readonly failures = new Map<string, number>();
  private readonly skipped = new Map<string, string>();
  private notSent = 0;
  private hostsSkipped = 0;

  constructor(
    private readonly max: number,
    private readonly onSkip: (host: SkippedHost) => void,
  ) {}

  /** Hosts given up on so far, and the requests to them that were not sent. */
  get figures(): { readonly hosts: number; readonly requestsNotSent: number } {
    return { hosts: this.hostsSkipped, requestsNotSent: this.notSent };
  }

  /** Every host gets its whole budget again (the figures are kept). */
  forget(): void {
    this.failures.clear();
    this.skipped.clear();
  }

  // Every request of a scan passes here: while no host has failed, nothing is looked up or keyed.
  readonly interceptor: Interceptor = (next) => (outgoing, options) => {
    const reason = this.skipped.size === 0 ? undefined : this.skipped.get(hostOf(outgoing));
    if (reason !== undefined) {
      this.notSent++;
      return Promise.reject(new HostSkipped(urlOf(outgoing), reason));
    }
    return next(outgoing, options).then(
      (sent) => {
        if (this.failures.size > 0) this.failures.delete(hostOf(outgoing));
        return sent;
      },
      (error: unknown) => {
        if (
          error instanceof TransportError &&
          UNRESPONSIVE.has(error.kind) &&
          options.signal?.aborted !== true
        )
          this.failed(hostOf(outgoing), error);
        throw error;
      },
    );
  };

  private failed(host: string, error: TransportError): void {
    if (this.skipped.has(host)) return;
    const errors = isPermanent(error) ? this.max : (this.failures.get(host) ?? 0) + 1;
    if (errors < this.max) {
      this.failures.set(host, errors);
      return;
    }
    this.failures.delete(host);
    const count = isPermanent(error) ? 1 : errors;
    this.skipped.set(
      host,
      `${host} was skipped after ${count === 1 ? 'a failure' : `${count} failures in a row`} (last: ${error.detail})`,
    );
    this.hostsSkipped++;
    this.onSkip({ host, errors: count, cause: error.detail });
  }
}

function isPermanent(error: TransportError): boolean {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && PERMANENT_CODES.has(code);
}

function hostOf(outgoing: Outgoing): string {
  const name = outgoing.hostname.toLowerCase();
  return `${name.includes(':') ? `[${name}]` : name}:${outgoing.port}`;
}
