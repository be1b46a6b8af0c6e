import type { FlowLimits } from '../flow/index.js';
import type {
  HeaderList,
  HttpRequest,
  HttpResponse,
  RawHttpRequest,
  Scheme,
  SendOptions,
} from '../http/index.js';
import type { OperatorResult } from '../operators/index.js';
import type { ResultEvent } from '../output/index.js';

/** What sends requests: the scan's shared `HttpClient`, or a wrapper around it (rate limits). */
export interface RequestSender {
  send(request: HttpRequest, options?: SendOptions): Promise<HttpResponse>;
  sendRaw(request: RawHttpRequest, options?: SendOptions): Promise<HttpResponse>;
}

/** Where a request goes. */
export interface Destination {
  readonly scheme: Scheme;
  readonly hostname: string;
  readonly port: number;
}

/**
 * The decision for one outgoing request: send it (as given back, e.g. with a credential applied), or
 * refuse it (a failed login in scope: the request is not sent and is reported as an error). `grant`
 * is handed back to `afterResponse` so the authorizer knows which session a response answers.
 */
export type Authorization<R> =
  | { readonly kind: 'send'; readonly request: R; readonly grant?: unknown }
  | { readonly kind: 'refuse'; readonly reason: string };

/** A response as the authorizer sees it after the exchange. */
export interface AuthorizedExchange {
  readonly destination: Destination;
  readonly response: HttpResponse;
  readonly grant?: unknown;
}

/**
 * Decides, for every request and every redirect hop, what goes out to its actual destination. It is
 * called with the request as the template built it (never with another host's credential on it).
 * Requests of blocks with `skip-secret-file: true` go through its `unscoped()` authorizer, if any.
 */
export interface RequestAuthorizer {
  /** Answered at once when nothing has to be waited for (a static secret, a live session). */
  authorize(request: HttpRequest): Authorization<HttpRequest> | Promise<Authorization<HttpRequest>>;
  /** For `unsafe` requests, whose bytes are sent as written: edit the text, keep every other byte. */
  authorizeRaw(text: string, destination: Destination): Promise<Authorization<string>>;
  /** The authorizer of blocks that opt out of secrets (`skip-secret-file`): requests go as built. */
  unscoped?(): RequestAuthorizer;
  /**
   * After a response: `retry` asks for the request to be sent once more, authorized afresh (e.g. the
   * response showed the session was lost and a new login ran). Asked once per request.
   */
  afterResponse?(exchange: AuthorizedExchange): Promise<'retry' | 'keep'> | 'retry' | 'keep';
}

export interface RunOptions {
  readonly client: RequestSender;
  /** `-var name=value`: override the template's `variables:` (payload values still win). */
  readonly variables?: Readonly<Record<string, string>>;
  /** `-H "Name: value"`: set on every request (replacing the template's), before the authorizer. */
  readonly headers?: HeaderList;
  readonly authorizer?: RequestAuthorizer;
  /**
   * Why a redirect to `to` must not be followed (undefined: follow it as the template says). The
   * request that led there then fails as refused: a login's credentials never follow a redirect out
   * of its entry's scope.
   */
  readonly refuseRedirect?: (to: Destination) => string | undefined;
  /** `-ms`: when nothing matched, also report one `matcher-status: false` event for the run. */
  readonly matcherStatus?: boolean;
  /** Per-request deadline (default: the client's); a raw request's `@timeout` wins. */
  readonly timeoutMs?: number;
  /** Most body bytes read per response (default: the client's); a block's `max-size` wins. */
  readonly maxBodyBytes?: number;
  /** Times a request that failed in transport (connect, lost connection, timeout) is sent again. */
  readonly retries?: number;
  readonly signal?: AbortSignal;
  /** Called with each result event as soon as it is found. */
  readonly onEvent?: (event: ResultEvent) => void;
  /** Called after each request: for progress. */
  readonly onRequest?: (outcome: RequestOutcome) => void;
  /** Called with the operators' result on every evaluated response (logins read extracted values). */
  readonly onResult?: (result: EvaluatedResponse) => void;
  /** `User-Agent` of requests that set none (default: {@link DEFAULT_USER_AGENT}). */
  readonly userAgent?: string;
  /** Clock for `timestamp` (default: now). */
  readonly now?: () => Date;
  /** Limits of a JavaScript `flow:` (defaults: {@link DEFAULT_FLOW_LIMITS}, 10,000 block runs). */
  readonly flowLimits?: Partial<FlowRunLimits>;
  /** Called with what a flow's `log(…)` prints (debugging; it may show secret values). */
  readonly onFlowLog?: (message: string) => void;
}

export interface FlowRunLimits extends FlowLimits {
  /** Most `http(…)` block runs in one flow run. */
  readonly blockRuns: number;
}

export const DEFAULT_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 keyhole';

export type RequestOutcome =
  | {
      readonly kind: 'sent';
      readonly url: string;
      readonly status: number;
      /** The body limit the evaluated response's body was cut at (see `HttpResponse.truncatedAt`). */
      readonly truncatedAt: number | undefined;
    }
  | { readonly kind: 'failed'; readonly failure: RequestFailure }
  | { readonly kind: 'skipped'; readonly skip: SkippedRequest };

/** A request that was not answered: transport error, refused by the authorizer, or unbuildable. */
export interface RequestFailure {
  /** 0-based block index. */
  readonly block: number;
  readonly url: string;
  readonly kind: 'transport' | 'refused' | 'invalid';
  readonly message: string;
}

/** A request left unsent because placeholders stayed unresolved (the rest of its block is skipped). */
export interface SkippedRequest {
  readonly block: number;
  /** 0-based index of the raw request or path in the block. */
  readonly request: number;
  /** The placeholders as written, e.g. `{{username}}`. */
  readonly unresolved: readonly string[];
  /** The variables they read that had no value (payload values included), e.g. `username`. */
  readonly missing: readonly string[];
  readonly reason: string;
}

export interface EvaluatedResponse {
  readonly block: number;
  readonly url: string;
  readonly status: number;
  readonly result: OperatorResult;
}

/** The outcome of one template run against one target. */
export interface TemplateRun {
  readonly templateId: string;
  /** The input the template ran against (`''` for a self-contained run without one). */
  readonly target: string;
  /** At least one finding (`matcher-status: true`) was reported. */
  readonly matched: boolean;
  /** Every event reported, in order (also given to `onEvent` as found). */
  readonly events: readonly ResultEvent[];
  /** Requests that got a response. */
  readonly requests: number;
  readonly failures: readonly RequestFailure[];
  readonly skipped: readonly SkippedRequest[];
  /** Stopped by the signal before the end. */
  readonly aborted: boolean;
  /** Status of the last response received, if any. */
  readonly lastStatus?: number;
  /** The flow stopped with an error (an exception, a limit reached) or named no block. */
  readonly flowError?: string;
}
