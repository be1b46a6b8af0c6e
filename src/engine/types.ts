import type { ResultEvent } from '../event/index.js';
import type { FlowLimits } from '../flow/index.js';
import type { HeaderList, HttpRequest } from '../http/index.js';
import type { Interaction } from '../oast/index.js';
import type { OperatorResult } from '../operators/index.js';
import type { Dispatch } from '../send/index.js';
import type { AttackType } from '../template/index.js';

export interface RunOptions {
  /**
   * Sends every request of the run: the session's chain, which applies each hop's secret, resends
   * what failed in transport, paces and counts (a bare transport for tests and tools).
   */
  readonly dispatch: Dispatch;
  /**
   * How many per-request deadlines a request that follows redirects may take, all hops and resends
   * together (default 1; a session that resends N times gives 1 + N).
   */
  readonly exchangeDeadlines?: number;
  /** `-var name=value`: override the template's `variables:` (payload values still win). */
  readonly variables?: Readonly<Record<string, string>>;
  /** `-H "Name: value"`: set on every request (replacing the template's), before its secret. */
  readonly headers?: HeaderList;
  /**
   * Why a redirect to `to` must not be followed (undefined: follow it as the template says). The
   * request that led there then fails as refused: a login's credentials never follow a redirect out
   * of its entry's scope.
   */
  readonly refuseRedirect?: (to: HttpRequest) => string | undefined;
  /** nuclei's flags that change what the templates send, over what their blocks say. */
  readonly overrides?: SendingOverrides;
  /** `-ms`: when nothing matched, also report one `matcher-status: false` event for the run. */
  readonly matcherStatus?: boolean;
  /** Per-request deadline (default: the client's); a raw request's `@timeout` wins. */
  readonly timeoutMs?: number | undefined;
  /** Most body bytes read per response (default: the client's); a block's `max-size` wins. */
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal | undefined;
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
  /**
   * A JavaScript `flow:` takes an engine beyond the shared bound instead of waiting for one: for a
   * login's template, which flow runs holding those engines may be waiting on.
   */
  readonly flowOutsideBound?: boolean;
  /** Called with what a flow's `log(…)` prints (debugging; it may show secret values). */
  readonly onFlowLog?: (message: string) => void;
  /**
   * Called when an expression of a dsl matcher under `or` fails to evaluate (nuclei's warning with
   * `SHOW_DSL_ERRORS=true`); the message names the expression, never a value.
   */
  readonly onDslError?: (error: { readonly templateId: string; readonly message: string }) => void;
  /**
   * Out-of-band testing: where `{{interactsh-url}}` names come from and their interactions arrive.
   * Without it (`-ni`), requests that need one are skipped.
   */
  readonly oast?: OastSource;
}

/** The callback names of a scan and the interactions they receive (an interactsh registration). */
export interface OastSource {
  /** A new callback name, `<unique id>.<domain>`. */
  newName(): { readonly host: string; readonly uniqueId: string };
  /**
   * Hands `take` the interactions of the names `ids` as they arrive, until it returns true or the
   * cooldown after the request has passed, or `signal` aborts.
   */
  waitFor(
    ids: Iterable<string>,
    take: (interaction: Interaction) => boolean,
    signal?: AbortSignal,
  ): Promise<void>;
}

/** nuclei's flags that change what a template sends, over what its blocks say. */
export interface SendingOverrides {
  /**
   * `-dr`: no block follows redirects; `-fr` / `-fhr`: every block follows them (all, or on the same
   * host), at most `max` (`-mr`; else the block's `max-redirects`, else nuclei's 10).
   */
  readonly redirects?:
    | { readonly follow: 'none' }
    | { readonly follow: 'all' | 'same-host'; readonly max?: number };
  /** `-sni`: the TLS server name of every request that names none itself (`@tls-sni`). */
  readonly tlsServerName?: string;
  /** `-at`: the payload combinations of every block with payloads. */
  readonly attack?: AttackType;
  /** `-rsr`: most body bytes read per response, over a block's `max-size`. */
  readonly maxBodyBytes?: number;
  /** `-spm`: every block stops at its first match. */
  readonly stopAtFirstMatch?: boolean;
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
  /** `host-skipped`: not sent, its host was given up on after failing again and again (`-mhe`). */
  readonly kind: 'transport' | 'refused' | 'host-skipped' | 'invalid';
  readonly message: string;
}

/** A request left unsent because placeholders stayed unresolved (the rest of its block is skipped). */
export interface SkippedRequest {
  /**
   * `unresolved`: a `{{…}}` read a variable nothing set, or failed to evaluate (a helper's error);
   * `oast-off`: it needs a callback name and out-of-band testing is off (`-ni`).
   */
  readonly cause: 'unresolved' | 'oast-off';
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
