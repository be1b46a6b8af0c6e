/**
 * Sends one built request through the session's dispatch (which applies each hop's secret, resends,
 * paces and counts): its cookies from the run's jar, the block's redirect policy, and every response
 * of a redirect chain kept, first request first. A request that follows redirects spends at most
 * `deadlines` × its timeout on the wire, all hops and resends together (without redirects its tries
 * are bounded so already).
 */
import {
  type CookieJar,
  type HttpRequest,
  type HttpResponse,
  type RaceGate,
  type RedirectPolicy,
  requestUrl,
  SendBudget,
  sendFollowingRedirects,
  TransportError,
} from '../http/index.js';
import { type Dispatch, type DispatchOptions, HostSkipped, type Outgoing, Refused } from '../send/index.js';
import type { RedirectPolicy as TemplateRedirects } from '../template/index.js';
import type { BuiltRequest } from './build.js';

export interface ExchangeHop {
  /** What went out: the request as sent (secret applied), or an unsafe request's bytes. */
  readonly sent: Outgoing;
  readonly response: HttpResponse;
  /** The URL of the request before any secret was applied: the finding's `matched-at`. */
  readonly url: string;
}

export type ExchangeResult =
  | { readonly kind: 'ok'; readonly hops: readonly ExchangeHop[] }
  | {
      readonly kind: 'failed';
      readonly failure: 'transport' | 'refused' | 'host-skipped';
      readonly url: string;
      readonly message: string;
      /** Hops answered before the failure (a redirect chain can fail half-way). */
      readonly hops: readonly ExchangeHop[];
    };

export interface ExchangeSettings {
  readonly dispatch: Dispatch;
  /** Why a redirect to a request must not be followed; the exchange then fails as refused. */
  readonly refuseRedirect?: (to: HttpRequest) => string | undefined;
  /** The run's cookie jar; undefined with `disable-cookie`. */
  readonly jar?: CookieJar;
  readonly redirects: TemplateRedirects;
  /** How many per-request deadlines a request, its redirects and resends may take together. */
  readonly deadlines: number;
  readonly timeoutMs?: number;
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal;
  readonly withoutSecrets: boolean;
  /** `-sni`: the TLS server name of requests that name none themselves. */
  readonly tlsServerName?: string;
  /** `race`: the gate the request's last byte waits at. */
  readonly race?: RaceGate;
  /** The dispatch options of requests without their own timeout or TLS name (see {@link commonOptions}). */
  readonly common: DispatchOptions;
}

export function exchange(built: BuiltRequest, settings: ExchangeSettings): Promise<ExchangeResult> {
  const hops: ExchangeHop[] = [];
  let sending: Promise<unknown>;
  try {
    sending =
      built.kind === 'unsafe' ? exchangeUnsafe(built, settings, hops) : exchangeHttp(built, settings, hops);
  } catch (error) {
    sending = Promise.reject(error);
  }
  return sending.then(
    (): ExchangeResult => ({ kind: 'ok', hops }),
    (error: unknown) => failedExchange(error, hops),
  );
}

function failedExchange(error: unknown, hops: ExchangeHop[]): ExchangeResult {
  if (error instanceof HostSkipped) {
    return { kind: 'failed', failure: 'host-skipped', url: error.url, message: error.message, hops };
  }
  if (error instanceof Refused) {
    return { kind: 'failed', failure: 'refused', url: error.url, message: error.message, hops };
  }
  if (error instanceof TransportError) {
    return { kind: 'failed', failure: 'transport', url: error.url, message: error.message, hops };
  }
  throw error;
}

/** Sends a request and, as the block says, the redirects it leads to; rejects with Refused or a TransportError. */
function exchangeHttp(
  built: Extract<BuiltRequest, { kind: 'http' }>,
  settings: ExchangeSettings,
  hops: ExchangeHop[],
): Promise<unknown> {
  const options = dispatchOptions(settings, built.timeoutMs, built.tlsServerName);
  if (settings.redirects.follow === 'none') return sendHop(built.request, settings, options, hops);
  const shared: DispatchOptions = { ...options, budget: new SendBudget(settings.deadlines) };
  const { refuseRedirect } = settings;
  return sendFollowingRedirects(built.request, {
    send: (clean, hop) => {
      const refusal = hop === 0 ? undefined : refuseRedirect?.(clean);
      if (refusal !== undefined) return Promise.reject(new Refused(requestUrl(clean), refusal));
      return sendHop(clean, settings, shared, hops);
    },
    policy: redirectPolicy(settings.redirects),
    maxRedirects: settings.redirects.max,
  });
}

/** One hop: the jar's cookies added, sent through the dispatch, the response's cookies stored. */
function sendHop(
  clean: HttpRequest,
  settings: ExchangeSettings,
  options: DispatchOptions,
  hops: ExchangeHop[],
): Promise<HttpResponse> {
  const { jar } = settings;
  return settings.dispatch(jar === undefined ? clean : jar.apply(clean), options).then((sent) => {
    jar?.store(sent.response);
    hops.push({ sent: sent.request, response: sent.response, url: requestUrl(clean) });
    return sent.response;
  });
}

function exchangeUnsafe(
  built: Extract<BuiltRequest, { kind: 'unsafe' }>,
  settings: ExchangeSettings,
  hops: ExchangeHop[],
): Promise<unknown> {
  const options = dispatchOptions(settings, built.timeoutMs, undefined);
  return settings.dispatch({ ...built.destination, bytes: built.text }, options).then((sent) => {
    hops.push({ sent: sent.request, response: sent.response, url: built.url });
  });
}

function dispatchOptions(
  settings: ExchangeSettings,
  timeoutMs: number | undefined,
  tlsServerName: string | undefined,
): DispatchOptions {
  if (timeoutMs === undefined && tlsServerName === undefined) return settings.common;
  return newOptions(settings, timeoutMs, tlsServerName);
}

/** The dispatch options every request of these settings shares, made once with them. */
export function commonOptions(settings: Omit<ExchangeSettings, 'common'>): DispatchOptions {
  return newOptions(settings, undefined, undefined);
}

function newOptions(
  settings: Omit<ExchangeSettings, 'common'>,
  timeoutMs: number | undefined,
  tlsServerName: string | undefined,
): DispatchOptions {
  const timeout = timeoutMs ?? settings.timeoutMs;
  const options: { -readonly [K in keyof DispatchOptions]: DispatchOptions[K] } = {};
  if (timeout !== undefined) options.timeoutMs = timeout;
  if (settings.maxBodyBytes !== undefined) options.maxBodyBytes = settings.maxBodyBytes;
  if (settings.signal !== undefined) options.signal = settings.signal;
  const serverName = tlsServerName ?? settings.tlsServerName;
  if (serverName !== undefined) options.tlsServerName = serverName;
  if (settings.withoutSecrets) options.withoutSecrets = true;
  if (settings.race !== undefined) options.race = settings.race;
  return options;
}

function redirectPolicy(policy: TemplateRedirects): RedirectPolicy {
  switch (policy.follow) {
    case 'none':
      return 'none';
    case 'all':
      return 'any';
    case 'same-host':
      return 'same-host';
  }
}
