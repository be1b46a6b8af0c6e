/**
 * Helpers that reach a service other than the scan's targets (public_ip, llm_prompt): they read
 * their settings from the environment of the command that runs them, say what leaves the machine
 * and where through it, and call the service on a worker thread while the expression waits
 * (blocking.ts).
 */
import { argumentError } from '../errors.js';
import { runBlocking } from './blocking.js';

/** How a command lets these helpers run: the environment they read, where they announce calls. */
export interface OutboundSettings {
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly announce: (notice: string) => void;
  /**
   * Why a call failed or was not made (no key, no network): what needs the value is then skipped (a
   * request not sent, a matcher not matching), and this is where the user learns why. Each message
   * is given once per registration.
   */
  readonly warn: (message: string) => void;
}

interface Registration {
  readonly settings: OutboundSettings;
  readonly warned: Set<string>;
}

const registered: Registration[] = [];

/**
 * Registers the settings of a command (the last registered wins; without any, the process's
 * environment and no announcements); gives the function that unregisters them.
 */
export function registerOutbound(settings: OutboundSettings): () => void {
  const registration = { settings, warned: new Set<string>() };
  registered.push(registration);
  return () => {
    const at = registered.lastIndexOf(registration);
    if (at >= 0) registered.splice(at, 1);
  };
}

export function outboundEnvironment(): Readonly<Record<string, string | undefined>> {
  return registered.at(-1)?.settings.environment ?? process.env;
}

export function announce(notice: string): void {
  registered.at(-1)?.settings.announce(notice);
}

/** Runs a helper's call, warning once of each reason it fails for. */
export function warningOfFailure<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    const registration = registered.at(-1);
    const message = error instanceof Error ? error.message : String(error);
    if (registration !== undefined && !registration.warned.has(message)) {
      registration.warned.add(message);
      registration.settings.warn(`${message} (what needs its value is skipped)`);
    }
    throw error;
  }
}

export interface ServiceCall {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
  /** The longest answer read; past it the call fails. */
  readonly maxBytes: number;
}

export interface ServiceAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * Runs on the worker thread: the call, its answer as text. Written without references outside itself,
 * since only its text reaches the worker. A failure's code names it (ECONNREFUSED, TimeoutError…).
 */
async function send(call: ServiceCall): Promise<ServiceAnswer> {
  const failure = (code: string) => Object.assign(new Error(code), { code });
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: call.method,
      headers: call.headers,
      ...(call.body === undefined ? {} : { body: call.body }),
      redirect: 'error',
      signal: AbortSignal.timeout(call.timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw failure(cause?.code ?? (error as Error).name);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
    length += read.value.length;
    if (length > call.maxBytes) throw failure('answer too long');
    chunks.push(read.value);
  }
  return { status: response.status, body: Buffer.concat(chunks).toString('utf8') };
}

/** Calls the service and waits for its answer; a failure is an evaluation error of `helper`. */
export function callService(helper: string, call: ServiceCall): ServiceAnswer {
  // leave the worker a moment to start
  const outcome = runBlocking(send, call, call.timeoutMs + 2_000);
  if (outcome.kind === 'timed-out') throw argumentError(helper, `${call.url} did not answer in time`);
  if (outcome.kind === 'failed') throw argumentError(helper, `could not reach ${call.url} (${outcome.code})`);
  return outcome.value;
}

/** A URL of http or https, from a setting named `name`. */
export function serviceUrl(helper: string, name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw argumentError(helper, `${name} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw argumentError(helper, `${name} must be an http or https URL, not ${url.protocol}`);
  }
  return url;
}
