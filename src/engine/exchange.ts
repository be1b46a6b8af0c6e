/**
 * Sends one built request: through the authorizer (every hop, for its actual destination), the cookie
 * jar, the block's redirect policy, transport retries, and the authorizer's one retry after a
 * response. Every response of a redirect chain is returned, first request first. A request that
 * follows redirects spends at most (1 + retries) × its timeout on the wire, all hops and retries
 * together (without redirects its attempts are bounded so already).
 */
import {
  type BeforeHop,
  type CookieJar,
  type FollowOptions,
  type HttpRequest,
  type HttpResponse,
  type RedirectPolicy,
  requestUrl,
  SendBudget,
  type SendOptions,
  sendFollowingRedirects,
  TransportError,
} from '../http/index.js';
import type { RedirectPolicy as TemplateRedirects } from '../template/index.js';
import type { BuiltRequest } from './build.js';
import type { Authorization, Destination, RequestAuthorizer, RequestSender } from './types.js';

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
  /** Why a redirect to a request must not be followed; the exchange then fails as refused. */
  readonly refuseRedirect?: (to: Destination) => string | undefined;
  readonly jar?: CookieJar;
  readonly redirects: TemplateRedirects;
  readonly retries: number;
  readonly timeoutMs?: number;
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal;
  /** The send options of requests without their own timeout or TLS name (see {@link commonSendOptions}). */
  readonly common: SendOptions;
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
  if (error instanceof Refused) {
    return { kind: 'failed', failure: 'refused', url: error.url, message: error.message, hops };
  }
  if (error instanceof TransportError) {
    return { kind: 'failed', failure: 'transport', url: error.url, message: error.message, hops };
  }
  throw error;
}

interface Authorized {
  /** The request before the secret: each redirect hop is derived from it. */
  readonly clean: HttpRequest;
  /** The request with the secret, as it goes out. */
  readonly request: HttpRequest;
  readonly grant?: unknown;
}

/** Sends a request and, as the block says, the redirects it leads to; rejects with Refused or a TransportError. */
function exchangeHttp(
  built: Extract<BuiltRequest, { kind: 'http' }>,
  settings: ExchangeSettings,
  hops: ExchangeHop[],
): Promise<unknown> {
  const options = sendOptions(settings, built.timeoutMs, built.tlsServerName);
  if (settings.redirects.follow === 'none') {
    // One hop: what following redirects does for the first request, without its machinery.
    const { jar } = settings;
    if (jar === undefined) return sendHop(built.request, settings, options, hops);
    return sendHop(jar.apply(built.request), settings, options, hops).then((response) => jar.store(response));
  }
  const shared: SendOptions = { ...options, budget: new SendBudget(1 + settings.retries) };
  return followRedirects(built.request, settings, shared, hops);
}

async function followRedirects(
  request: HttpRequest,
  settings: ExchangeSettings,
  options: SendOptions,
  hops: ExchangeHop[],
): Promise<void> {
  const { authorizer, refuseRedirect } = settings;
  const guard: BeforeHop | undefined =
    refuseRedirect === undefined
      ? undefined
      : (clean, { hop }) => {
          const refusal = hop === 0 ? undefined : refuseRedirect(clean);
          if (refusal !== undefined) throw new Refused(requestUrl(clean), refusal);
          return clean;
        };
  if (authorizer === undefined) {
    await sendFollowingRedirects(request, {
      ...followOptions(settings, (outgoing) => sendHop(outgoing, settings, options, hops)),
      ...(guard === undefined ? {} : { beforeHop: guard }),
    });
    return;
  }
  // A map of this exchange's few hops, gone with it (a WeakMap costs the garbage collector more).
  const byRequest = new Map<HttpRequest, Authorized>();
  const beforeHop: BeforeHop = async (withCookies, context) => {
    const clean = guard === undefined ? withCookies : await guard(withCookies, context);
    const decided = await authorize(authorizer, clean);
    byRequest.set(decided.request, decided);
    return decided.request;
  };
  const send = (outgoing: HttpRequest): Promise<HttpResponse> => {
    const decided = byRequest.get(outgoing) ?? { clean: outgoing, request: outgoing };
    return sendAuthorized(decided, { authorizer, settings, options, hops });
  };
  await sendFollowingRedirects(request, { ...followOptions(settings, send), beforeHop });
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
    return sendWithRetries(clean, settings, options).then((response) => {
      hops.push({ sent: clean, response, url: requestUrl(clean) });
      return response;
    });
  }
  const decided = authorize(authorizer, clean);
  return decided instanceof Promise
    ? decided.then((known) => sendAuthorized(known, { authorizer, settings, options, hops }))
    : sendAuthorized(decided, { authorizer, settings, options, hops });
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

/** What an authorized hop is sent with: the same for every hop of an exchange. */
interface AuthorizedSending {
  readonly authorizer: RequestAuthorizer;
  readonly settings: ExchangeSettings;
  readonly options: SendOptions;
  readonly hops: ExchangeHop[];
}

/** Sends an authorized request; when the response shows the session was lost, once more afresh. */
function sendAuthorized(decided: Authorized, sending: AuthorizedSending): Promise<HttpResponse> {
  const { authorizer, settings, options, hops } = sending;
  const sent = decided.request;
  return sendWithRetries(sent, settings, options).then((response) => {
    const asked =
      authorizer.afterResponse === undefined
        ? 'keep'
        : authorizer.afterResponse({ destination: sent, response, grant: decided.grant });
    // Nearly every response: the session holds, and the answer is known at once.
    if (asked === 'keep') {
      hops.push({ sent, response, url: requestUrl(decided.clean) });
      return response;
    }
    return resendIfLoggedOut(asked, response, decided, sending);
  });
}

async function resendIfLoggedOut(
  asked: 'retry' | Promise<'retry' | 'keep'>,
  response: HttpResponse,
  decided: Authorized,
  { authorizer, settings, options, hops }: AuthorizedSending,
): Promise<HttpResponse> {
  let sent = decided.request;
  let answer = response;
  if ((await asked) === 'retry') {
    sent = (await authorize(authorizer, decided.clean)).request;
    answer = await sendWithRetries(sent, settings, options);
  }
  hops.push({ sent, response: answer, url: requestUrl(decided.clean) });
  return answer;
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
    withRetries(() => settings.client.sendRaw({ ...destination, bytes: text }, options), settings, options);
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

function sendOptions(
  settings: ExchangeSettings,
  timeoutMs: number | undefined,
  tlsServerName: string | undefined,
): SendOptions {
  if (timeoutMs === undefined && tlsServerName === undefined) return settings.common;
  return newSendOptions(settings, timeoutMs, tlsServerName);
}

/** The send options every request of these settings shares, made once with them. */
export function commonSendOptions(settings: Omit<ExchangeSettings, 'common'>): SendOptions {
  return newSendOptions(settings, undefined, undefined);
}

function newSendOptions(
  settings: Omit<ExchangeSettings, 'common'>,
  timeoutMs: number | undefined,
  tlsServerName: string | undefined,
): SendOptions {
  const timeout = timeoutMs ?? settings.timeoutMs;
  const options: { -readonly [K in keyof SendOptions]: SendOptions[K] } = {};
  if (timeout !== undefined) options.timeoutMs = timeout;
  if (settings.maxBodyBytes !== undefined) options.maxBodyBytes = settings.maxBodyBytes;
  if (settings.signal !== undefined) options.signal = settings.signal;
  if (tlsServerName !== undefined) options.tlsServerName = tlsServerName;
  return options;
}

const retried = new Set(['connect', 'connection-lost', 'timeout']);

function sendWithRetries(
  request: HttpRequest,
  settings: ExchangeSettings,
  options: SendOptions,
): Promise<HttpResponse> {
  // Without retries, the send itself: no promise or closure of our own around it.
  if (settings.retries <= 0) return settings.client.send(request, options);
  return retrying(() => settings.client.send(request, options), settings, options);
}

function withRetries(
  send: () => Promise<HttpResponse>,
  settings: ExchangeSettings,
  options: SendOptions,
): Promise<HttpResponse> {
  return settings.retries <= 0 ? send() : retrying(send, settings, options);
}

async function retrying(
  send: () => Promise<HttpResponse>,
  settings: ExchangeSettings,
  options: SendOptions,
): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      const again =
        error instanceof TransportError &&
        retried.has(error.kind) &&
        attempt < settings.retries &&
        options.budget?.exhausted !== true &&
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
