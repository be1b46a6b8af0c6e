/**
 * Sends one built request: through the authorizer (every hop, for its actual destination), the cookie
 * jar, the block's redirect policy, transport retries, and the authorizer's one retry after a
 * response. Every response of a redirect chain is returned, first request first.
 */
import {
  type BeforeHop,
  type CookieJar,
  type FollowOptions,
  type HttpRequest,
  type HttpResponse,
  type RedirectPolicy,
  requestUrl,
  type SendOptions,
  sendFollowingRedirects,
  TransportError,
} from '../http/index.js';
import type { RedirectPolicy as TemplateRedirects } from '../template/index.js';
import type { BuiltRequest } from './build.js';
import type { Authorization, RequestAuthorizer, RequestSender } from './types.js';

export interface ExchangeHop {
  /** What went out: the request as sent (secret applied), or an unsafe request's text. */
  readonly sent: HttpRequest | string;
  readonly response: HttpResponse;
  /** The URL of the request before any secret was applied: the finding's `matched-at`. */
  readonly url: string;
}

export type ExchangeResult =
  | { readonly kind: 'ok'; readonly hops: readonly ExchangeHop[] }
  | {
      readonly kind: 'failed';
      readonly failure: 'transport' | 'refused';
      readonly url: string;
      readonly message: string;
      /** Hops answered before the failure (a redirect chain can fail half-way). */
      readonly hops: readonly ExchangeHop[];
    };

export interface ExchangeSettings {
  readonly client: RequestSender;
  /** Undefined when the block opts out (`skip-secret-file`) or the scan has no secrets. */
  readonly authorizer?: RequestAuthorizer;
  readonly jar?: CookieJar;
  readonly redirects: TemplateRedirects;
  readonly retries: number;
  readonly timeoutMs?: number;
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal;
}

/** The authorizer said no: the request must not be sent. */
class Refused extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(reason);
  }
}

export async function exchange(built: BuiltRequest, settings: ExchangeSettings): Promise<ExchangeResult> {
  const hops: ExchangeHop[] = [];
  try {
    if (built.kind === 'unsafe') await exchangeUnsafe(built, settings, hops);
    else await exchangeHttp(built, settings, hops);
    return { kind: 'ok', hops };
  } catch (error) {
    if (error instanceof Refused) {
      return { kind: 'failed', failure: 'refused', url: error.url, message: error.message, hops };
    }
    if (error instanceof TransportError) {
      return { kind: 'failed', failure: 'transport', url: error.url, message: error.message, hops };
    }
    throw error;
  }
}

interface Authorized {
  /** The request before the secret: each redirect hop is derived from it. */
  readonly clean: HttpRequest;
  /** The request with the secret, as it goes out. */
  readonly request: HttpRequest;
  readonly grant?: unknown;
}

async function exchangeHttp(
  built: Extract<BuiltRequest, { kind: 'http' }>,
  settings: ExchangeSettings,
  hops: ExchangeHop[],
): Promise<void> {
  const options = sendOptions(settings, built.timeoutMs, built.tlsServerName);
  if (settings.redirects.follow === 'none') {
    // One hop: what following redirects does for the first request, without its machinery.
    const first = settings.jar?.apply(built.request) ?? built.request;
    const response = await sendHop(first, settings, options, hops);
    settings.jar?.store(response);
    return;
  }
  const { authorizer } = settings;
  if (authorizer === undefined) {
    await sendFollowingRedirects(
      built.request,
      followOptions(settings, (outgoing) => sendHop(outgoing, settings, options, hops)),
    );
    return;
  }
  // A map of this exchange's few hops, gone with it (a WeakMap costs the garbage collector more).
  const byRequest = new Map<HttpRequest, Authorized>();
  const beforeHop: BeforeHop = async (clean) => {
    const decided = await authorize(authorizer, clean);
    byRequest.set(decided.request, decided);
    return decided.request;
  };
  const send = (outgoing: HttpRequest): Promise<HttpResponse> => {
    const decided = byRequest.get(outgoing) ?? { clean: outgoing, request: outgoing };
    return sendAuthorized(decided, authorizer, settings, options, hops);
  };
  await sendFollowingRedirects(built.request, { ...followOptions(settings, send), beforeHop });
}

/** Sends one hop: through the authorizer when there is one. */
function sendHop(
  clean: HttpRequest,
  settings: ExchangeSettings,
  options: SendOptions,
  hops: ExchangeHop[],
): Promise<HttpResponse> {
  const { authorizer } = settings;
  if (authorizer === undefined) {
    return withRetries(() => settings.client.send(clean, options), settings).then((response) => {
      hops.push({ sent: clean, response, url: requestUrl(clean) });
      return response;
    });
  }
  const decided = authorize(authorizer, clean);
  return decided instanceof Promise
    ? decided.then((known) => sendAuthorized(known, authorizer, settings, options, hops))
    : sendAuthorized(decided, authorizer, settings, options, hops);
}

/** The request with its secret (at once when the authorizer knows it), or Refused. */
function authorize(authorizer: RequestAuthorizer, clean: HttpRequest): Authorized | Promise<Authorized> {
  const decision = authorizer.authorize(clean);
  return decision instanceof Promise
    ? decision.then((known) => authorizedBy(clean, known))
    : authorizedBy(clean, decision);
}

function authorizedBy(clean: HttpRequest, decision: Authorization<HttpRequest>): Authorized {
  if (decision.kind === 'refuse') throw new Refused(requestUrl(clean), decision.reason);
  return { clean, request: decision.request, grant: decision.grant };
}

/** Sends an authorized request; when the response shows the session was lost, once more afresh. */
async function sendAuthorized(
  decided: Authorized,
  authorizer: RequestAuthorizer,
  settings: ExchangeSettings,
  options: SendOptions,
  hops: ExchangeHop[],
): Promise<HttpResponse> {
  let sent = decided.request;
  let response = await withRetries(() => settings.client.send(sent, options), settings);
  if (authorizer.afterResponse !== undefined) {
    const asked = authorizer.afterResponse({ destination: sent, response, grant: decided.grant });
    const verdict = asked instanceof Promise ? await asked : asked;
    if (verdict === 'retry') {
      sent = (await authorize(authorizer, decided.clean)).request;
      response = await withRetries(() => settings.client.send(sent, options), settings);
    }
  }
  hops.push({ sent, response, url: requestUrl(decided.clean) });
  return response;
}

function followOptions(
  settings: ExchangeSettings,
  send: (request: HttpRequest) => Promise<HttpResponse>,
): FollowOptions {
  return {
    send,
    policy: redirectPolicy(settings.redirects),
    ...(settings.redirects.follow === 'none' ? {} : { maxRedirects: settings.redirects.max }),
    ...(settings.jar === undefined ? {} : { jar: settings.jar }),
  };
}

async function exchangeUnsafe(
  built: Extract<BuiltRequest, { kind: 'unsafe' }>,
  settings: ExchangeSettings,
  hops: ExchangeHop[],
): Promise<void> {
  const { authorizer } = settings;
  const destination = built.destination;
  const options = sendOptions(settings, built.timeoutMs, undefined);
  const authorize = async (): Promise<{ text: string; grant?: unknown }> => {
    if (authorizer === undefined) return { text: built.text };
    const decision = await authorizer.authorizeRaw(built.text, destination);
    if (decision.kind === 'refuse') throw new Refused(built.url, decision.reason);
    return { text: decision.request, grant: decision.grant };
  };
  const sendText = (text: string) =>
    withRetries(() => settings.client.sendRaw({ ...destination, bytes: text }, options), settings);
  let { text, grant } = await authorize();
  let response = await sendText(text);
  if (authorizer?.afterResponse !== undefined) {
    const verdict = await authorizer.afterResponse({ destination, response, grant });
    if (verdict === 'retry') {
      ({ text, grant } = await authorize());
      response = await sendText(text);
    }
  }
  hops.push({ sent: text, response, url: built.url });
}

/** The send options of requests without their own timeout or TLS name, per exchange settings. */
const commonSendOptions = new WeakMap<ExchangeSettings, SendOptions>();

function sendOptions(
  settings: ExchangeSettings,
  timeoutMs: number | undefined,
  tlsServerName: string | undefined,
): SendOptions {
  if (timeoutMs !== undefined || tlsServerName !== undefined) {
    return newSendOptions(settings, timeoutMs, tlsServerName);
  }
  let common = commonSendOptions.get(settings);
  if (common === undefined) {
    common = newSendOptions(settings, undefined, undefined);
    commonSendOptions.set(settings, common);
  }
  return common;
}

function newSendOptions(
  settings: ExchangeSettings,
  timeoutMs: number | undefined,
  tlsServerName: string | undefined,
): SendOptions {
  const timeout = timeoutMs ?? settings.timeoutMs;
  return {
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    ...(settings.maxBodyBytes === undefined ? {} : { maxBodyBytes: settings.maxBodyBytes }),
    ...(settings.signal === undefined ? {} : { signal: settings.signal }),
    ...(tlsServerName === undefined ? {} : { tlsServerName }),
  };
}

const retried = new Set(['connect', 'connection-lost', 'timeout']);

function withRetries(send: () => Promise<HttpResponse>, settings: ExchangeSettings): Promise<HttpResponse> {
  // Without retries, the send itself: no promise of our own around it.
  return settings.retries <= 0 ? send() : retrying(send, settings);
}

async function retrying(
  send: () => Promise<HttpResponse>,
  settings: ExchangeSettings,
): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const again =
        error instanceof TransportError &&
        retried.has(error.kind) &&
        attempt < settings.retries &&
        settings.signal?.aborted !== true;
      if (!again) throw error;
    }
  }
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
