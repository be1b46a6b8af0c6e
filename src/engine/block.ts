/**
 * One `http:` block against one target, as nuclei's `ExecuteWithResults` runs it: for each payload
 * combination, each raw request or path in order; values extracted by a request feed the next ones
 * (the latest extraction's first value); every response is recorded under indexed names (`body_2`)
 * for the requests after it; every response of a redirect chain is evaluated, newest first; a request
 * whose placeholders stay unresolved is skipped with the rest of the block; `stop-at-first-match`
 * ends the block at the first match. With `threads:` and payloads, combinations run in parallel
 * (each on its own: no history, no values passed between them), as nuclei runs them. A race sends
 * its requests the same way, each on a connection of its own, released together at a gate: the
 * first request `race_count` times at once, or with `threads:` every request, `threads` at a time.
 */
import { LayeredScope, type TemplateString, type UnresolvedPlaceholder } from '../dsl/index.js';
import type { ResultEvent } from '../event/index.js';
import {
  type CookieJar,
  curlCommand,
  dumpRawRequest,
  dumpRequest,
  dumpResponse,
  RaceGate,
} from '../http/index.js';
import type { Interaction } from '../oast/index.js';
import { type OperatorResult, responseVariables } from '../operators/index.js';
import { isRaw } from '../send/index.js';
import { parseTargetUrl, TargetError, type TargetUrl } from '../targets/index.js';
import {
  type AttackType,
  DEFAULT_MAX_REDIRECTS,
  type HttpBlock,
  type RedirectPolicy,
  targetVariables,
  withPort,
} from '../template/index.js';
import {
  BuildError,
  type BuildSettings,
  type BuiltRequest,
  buildPathRequest,
  buildRawRequest,
} from './build.js';
import { type CompiledBlock, compiledBlock, payloadTexts } from './compiled.js';
import { cnameChain, cnameValues } from './dns.js';
import { type EventBase, findingEvent, type ResponseFacts, rfc3339 } from './event.js';
import {
  commonOptions,
  type ExchangeHop,
  type ExchangeResult,
  type ExchangeSettings,
  exchange,
} from './exchange.js';
import { indexedValues, ResponseHistory } from './history.js';
import { eventInteraction, interactionValues, OAST_NAME_VARIABLE, type OastUse, oastUse } from './oast.js';
import { addPayloads, type RequestScope, requestScope, type TemplateVariables, type Value } from './scope.js';
import {
  DEFAULT_USER_AGENT,
  type RequestFailure,
  type RunOptions,
  type SendingOverrides,
  type SkippedRequest,
} from './types.js';

/** What the blocks of one run share, by what changes together. */
export interface RunState {
  readonly given: RunGiven;
  readonly shared: SharedValues;
  readonly outcome: RunOutcome;
  readonly targetValues: TargetValueCache;
}

/** What the run was given and made before its first request: fixed for the run. */
export interface RunGiven {
  readonly options: RunOptions;
  /** Undefined for a self-contained run without an input. */
  readonly target: TargetUrl | undefined;
  readonly base: EventBase;
  readonly jar: CookieJar;
  readonly variables: TemplateVariables;
  readonly optionValues: ReadonlyMap<string, Value>;
  readonly constants: ReadonlyMap<string, Value>;
  /** Share values through `shared.context` (several blocks, or a flow). */
  readonly shareContext: 'none' | 'blocks' | 'flow';
  readonly templateStopAtFirstMatch: boolean;
}

/** What blocks pass on to the blocks after them. */
export interface SharedValues {
  /** Values shared between blocks (nuclei's template context). */
  readonly context: Map<string, Value>;
  /** `<block id>_<name>` values of earlier responses, visible to operators. */
  readonly previous: Map<string, Value>;
}

/** What the run found and did so far. */
export interface RunOutcome {
  readonly events: ResultEvent[];
  readonly failures: RequestFailure[];
  readonly skipped: SkippedRequest[];
  matched: boolean;
  requests: number;
  aborted: boolean;
  lastStatus: number | undefined;
  /** Why the flow ended before its end, or named a block that does not exist. */
  flowError: string | undefined;
  /** The last evaluated response that produced no finding (for `-ms`). */
  lastUnmatched: ResponseFacts | undefined;
}

/** Target variables, made once per origin (and for the run's own target, once without and with its trailing slash). */
export interface TargetValueCache {
  readonly byOrigin: Map<string, ReadonlyMap<string, Value>>;
  readonly ofRunTarget: [ReadonlyMap<string, Value> | undefined, ReadonlyMap<string, Value> | undefined];
}

export interface BlockOutcome {
  /** nuclei's flow value of `http(N)`: a matcher matched, or the block has none and ran. */
  readonly flowValue: boolean;
}

interface BlockRun {
  readonly state: RunState;
  readonly block: HttpBlock;
  readonly compiled: CompiledBlock;
  readonly stopAtFirstMatch: boolean;
  readonly hasMatchers: boolean;
  readonly hasOperators: boolean;
  /** Each response needs its host's CNAME chain. */
  readonly readsCname: boolean;
  /** The operators read `ip`, the address each response came from. */
  readonly readsIp: boolean;
  /** Whether requests write a callback name and responses wait for its interactions. */
  readonly oast: OastUse;
  readonly onDslError: ((message: string) => void) | undefined;
  flowValue: boolean;
  /** A finding was reported and the block stops at the first one. */
  stopped: boolean;
  /** An unresolved request ended the block. */
  ended: boolean;
  readonly sentOnce: Set<number>;
  /** How the block's requests are sent (the same for each). */
  readonly exchange: ExchangeSettings;
  /** How requests are built when the block sets no headers: made with the first of them. */
  plainBuild?: BuildSettings;
}

/** Per-request state that carries over between requests of a sequential block. */
interface Carry {
  /** Internal extractor values by name (the latest extraction's values). */
  readonly dynamic: Map<string, readonly string[]>;
  /** Indexed response values of earlier requests (`body_1`, …). */
  readonly history: ResponseHistory;
}

export async function runBlock(state: RunState, block: HttpBlock): Promise<BlockOutcome> {
  const compiled = compiledBlock(block);
  const model = compiled.operators.model;
  const run: BlockRun = {
    state,
    block,
    compiled,
    stopAtFirstMatch:
      block.stopAtFirstMatch ||
      state.given.templateStopAtFirstMatch ||
      state.given.options.overrides?.stopAtFirstMatch === true,
    hasMatchers: model.matchers.length > 0,
    hasOperators: model.matchers.length > 0 || model.extractors.length > 0,
    readsCname: readsCname(block),
    readsIp: block.operators.names === 'any' || block.operators.names.has('ip'),
    oast: oastUse(block),
    onDslError: dslErrorListener(state),
    flowValue: false,
    stopped: false,
    ended: false,
    sentOnce: new Set(),
    exchange: exchangeSettings(state, block),
  };
  const count = block.requests.kind === 'raw' ? compiled.raw.length : compiled.paths.length;
  const threads = block.threads ?? 0;
  if (block.race?.kind === 'count') {
    await runRaceCount(run, block.race.count);
  } else if (block.race?.kind === 'threads') {
    await runRaceGroups(run, count, threads);
  } else if (threads > 0 && block.payloads !== undefined) {
    await runParallel(run, count, threads);
  } else {
    const carry: Carry = { dynamic: new Map(), history: new ResponseHistory() };
    outer: for (const payloads of payloadTexts(block, state.given.options.overrides?.attack)) {
      for (let index = 0; index < count; index++) {
        if (done(run)) break outer;
        const sending = runRequest(run, index, payloads, carry);
        if (sending !== undefined) await sending;
      }
    }
  }
  return { flowValue: run.flowValue };
}

function dslErrorListener(state: RunState): ((message: string) => void) | undefined {
  const listener = state.given.options.onDslError;
  if (listener === undefined) return undefined;
  const templateId = state.given.base.templateId;
  return (message) => listener({ templateId, message });
}

function exchangeSettings(state: RunState, block: HttpBlock): ExchangeSettings {
  const { options } = state.given;
  const { overrides } = options;
  const maxBodyBytes = overrides?.maxBodyBytes ?? block.maxSize ?? options.maxBodyBytes;
  // Optional parts set one by one: made for every block of every run.
  const settings: { -readonly [K in keyof ExchangeSettings]: ExchangeSettings[K] } = {
    dispatch: options.dispatch,
    redirects: redirectsOf(block.redirects, overrides?.redirects),
    deadlines: options.exchangeDeadlines ?? 1,
    withoutSecrets: block.skipSecretFile,
    common: {},
  };
  if (options.refuseRedirect !== undefined) settings.refuseRedirect = options.refuseRedirect;
  if (block.cookieJar) settings.jar = state.given.jar;
  if (options.timeoutMs !== undefined) settings.timeoutMs = options.timeoutMs;
  if (maxBodyBytes !== undefined) settings.maxBodyBytes = maxBodyBytes;
  if (options.signal !== undefined) settings.signal = options.signal;
  if (overrides?.tlsServerName !== undefined) settings.tlsServerName = overrides.tlsServerName;
  settings.common = commonOptions(settings);
  return settings;
}

/** The block's redirect policy, or what `-dr`, `-fr`, `-fhr` and `-mr` make of it (as nuclei's client pool does). */
function redirectsOf(
  block: RedirectPolicy,
  override: SendingOverrides['redirects'] | undefined,
): RedirectPolicy {
  if (override === undefined) return block;
  if (override.follow === 'none') return override;
  const max = override.max ?? (block.follow === 'none' ? DEFAULT_MAX_REDIRECTS : block.max);
  return { follow: override.follow, max };
}

function done(run: BlockRun): boolean {
  if (run.state.given.options.signal?.aborted === true) run.state.outcome.aborted = true;
  return run.state.outcome.aborted || run.stopped || run.ended;
}

interface Task {
  readonly payloads: ReadonlyMap<string, TemplateString>;
  readonly index: number;
}

function* tasksOf(block: HttpBlock, count: number, attack: AttackType | undefined): Generator<Task> {
  for (const payloads of payloadTexts(block, attack)) {
    for (let index = 0; index < count; index++) yield { payloads, index };
  }
}

/** nuclei's `race_count`: the block's first request (of its first payload values), `count` times at once. */
async function runRaceCount(run: BlockRun, count: number): Promise<void> {
  const [first] = tasksOf(run.block, 1, run.state.given.options.overrides?.attack);
  if (first === undefined || done(run)) return;
  const gate = new RaceGate(count);
  const sending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const request = runRequest(run, first.index, first.payloads, undefined, gate);
    if (request !== undefined) sending.push(request);
  }
  await Promise.all(sending);
}

/** `race` with `threads:`: every request of the block, `threads` of them released together at a time. */
async function runRaceGroups(run: BlockRun, count: number, threads: number): Promise<void> {
  const tasks = tasksOf(run.block, count, run.state.given.options.overrides?.attack);
  for (;;) {
    const group: Task[] = [];
    for (let next = tasks.next(); next.done !== true; next = tasks.next()) {
      group.push(next.value);
      if (group.length === threads) break;
    }
    if (group.length === 0 || done(run)) return;
    const gate = new RaceGate(group.length);
    const sending: Promise<void>[] = [];
    for (const task of group) {
      const request = runRequest(run, task.index, task.payloads, undefined, gate);
      if (request !== undefined) sending.push(request);
    }
    await Promise.all(sending);
  }
}

async function runParallel(run: BlockRun, count: number, threads: number): Promise<void> {
  const tasks = tasksOf(run.block, count, run.state.given.options.overrides?.attack);
  const worker = async (): Promise<void> => {
    for (;;) {
      if (done(run)) return;
      const next = tasks.next();
      if (next.done === true) return;
      const sending = runRequest(run, next.value.index, next.value.payloads, undefined);
      if (sending !== undefined) await sending;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, threads) }, worker));
}

/**
 * Renders, builds, sends and evaluates one request. `carry` is undefined in parallel mode. Undefined
 * when nothing was sent (skipped, invalid, or an `@once` request already sent); a request's own
 * promise chain otherwise, without an async layer of its own.
 */
function runRequest(
  run: BlockRun,
  index: number,
  payloads: ReadonlyMap<string, TemplateString>,
  carry: Carry | undefined,
  gate?: RaceGate,
): Promise<void> | undefined {
  const { state, block } = run;
  const prepared = prepare(run, index, payloads, carry);
  // A request that does not go out never reaches the gate: the others need not wait for it.
  if (!('built' in prepared)) gate?.withdraw();
  if ('skip' in prepared) {
    state.outcome.skipped.push(prepared.skip);
    state.given.options.onRequest?.({ kind: 'skipped', skip: prepared.skip });
    run.ended = true;
    return undefined;
  }
  if ('invalid' in prepared) {
    fail(run, {
      block: block.index,
      url: state.given.base.input,
      kind: 'invalid',
      message: prepared.invalid,
    });
    return undefined;
  }
  const { built } = prepared;
  if (built.once) {
    if (run.sentOnce.has(index)) {
      gate?.withdraw();
      return undefined;
    }
    run.sentOnce.add(index);
  }
  const settings = gate === undefined ? run.exchange : racing(run.exchange, gate);
  const sending = exchange(built, settings);
  if (!run.readsCname) return sending.then((result) => answered(run, index, prepared, carry, result, EMPTY));
  const hostname = built.kind === 'http' ? built.request.hostname : built.destination.hostname;
  return Promise.all([sending, cnameChain(hostname)]).then(([result, chain]) =>
    answered(run, index, prepared, carry, result, cnameValues(chain)),
  );
}

function racing(settings: ExchangeSettings, gate: RaceGate): ExchangeSettings {
  return { ...settings, race: gate, common: { ...settings.common, race: gate } };
}

/** The operators read `cname` or `cname_all`, which nuclei resolves by DNS for every response. */
function readsCname(block: HttpBlock): boolean {
  const names = block.operators.names;
  if (names === 'any') return /\bcname/.test(block.usageText);
  return names.has('cname') || names.has('cname_all');
}

function answered(
  run: BlockRun,
  index: number,
  { built, scope, meta, oastIds }: Extract<Prepared, { built: BuiltRequest }>,
  carry: Carry | undefined,
  result: ExchangeResult,
  dnsValues: ReadonlyMap<string, Value>,
): void | Promise<void> {
  const { state, block } = run;
  if (result.kind === 'failed') {
    if (state.given.options.signal?.aborted === true) {
      state.outcome.aborted = true;
      return;
    }
    fail(run, { block: block.index, url: result.url, kind: result.failure, message: result.message });
    return;
  }
  state.outcome.requests++;
  const last = result.hops.at(-1);
  if (last !== undefined) {
    state.outcome.lastStatus = last.response.statusCode;
    state.given.options.onRequest?.({
      kind: 'sent',
      url: last.url,
      status: last.response.statusCode,
      truncatedAt: last.response.truncatedAt,
    });
  }
  const unsafe = built.kind === 'unsafe';
  const oast = state.given.options.oast;
  if (oastIds.length === 0 || oast === undefined || !run.oast.readsInteraction) {
    evaluateChain(run, index, result.hops, scope, meta, carry, unsafe, dnsValues);
    return;
  }
  // Evaluated once per interaction of the request's names, until one makes a finding.
  return oast.waitFor(oastIds, (interaction) => {
    if (run.stopped || state.outcome.aborted) return true;
    const before = state.outcome.events.length;
    evaluateChain(run, index, result.hops, scope, meta, carry, unsafe, dnsValues, interaction);
    return state.outcome.events.length > before;
  });
}

function fail(run: BlockRun, failure: RequestFailure): void {
  run.state.outcome.failures.push(failure);
  run.state.given.options.onRequest?.({ kind: 'failed', failure });
}

type Prepared =
  | {
      readonly built: BuiltRequest;
      readonly scope: RequestScope;
      readonly meta: Record<string, string>;
      /** The callback names the request wrote (their unique ids). */
      readonly oastIds: readonly string[];
    }
  | { readonly skip: SkippedRequest }
  | { readonly invalid: string };

function prepare(
  run: BlockRun,
  index: number,
  payloads: ReadonlyMap<string, TemplateString>,
  carry: Carry | undefined,
): Prepared {
  const { state, block, compiled } = run;
  const path = block.requests.kind === 'path' ? compiled.paths[index] : undefined;
  const target = state.given.target;
  const requestTarget =
    target !== undefined && path?.port !== undefined ? withPort(target, path.port) : target;
  const scope = requestScope({
    variables: state.given.variables,
    dynamic: firstValues(carry?.dynamic),
    context: state.shared.context,
    target: targetValues(state, requestTarget, path?.trimTrailingSlash === true),
    options: state.given.optionValues,
    constants: state.given.constants,
  });
  const { meta, unresolved } = addPayloads(scope, payloads, state.given.constants);
  const oastIds: string[] = [];
  if (run.oast.writesName) {
    const oast = state.given.options.oast;
    if (oast === undefined) return { skip: oastOff(block, index) };
    const name = oast.newName();
    scope.set(OAST_NAME_VARIABLE, name.host);
    oastIds.push(name.uniqueId);
  }
  const text = path?.text ?? compiled.raw[index];
  if (text === undefined)
    return { invalid: `request ${index + 1} of block ${block.index + 1} does not exist` };
  let rendered = text.render(scope);
  let sendTarget = requestTarget;
  if (sendTarget === undefined && path === undefined) {
    // A self-contained raw request: its request line names the URL, whose variables
    // ({{Hostname}}, …) are then known, as nuclei renders it a second time.
    const own = selfContainedTarget(rendered.text);
    if (own instanceof BuildError) return { invalid: own.message };
    sendTarget = own;
    for (const [name, value] of targetValues(state, own, false)) scope.set(name, value);
    for (const [name, value] of Object.entries(meta)) scope.set(name, value);
    rendered = text.render(scope);
  }
  const headers =
    compiled.headers.length === 0
      ? NO_RENDERED_HEADERS
      : compiled.headers.map((h) => ({ name: h.name, rendered: h.value.render(scope) }));
  const body = compiled.body?.render(scope);
  for (const detail of rendered.details) unresolved.push(detail.placeholder);
  for (const header of headers)
    for (const detail of header.rendered.details) unresolved.push(detail.placeholder);
  if (body !== undefined) for (const detail of body.details) unresolved.push(detail.placeholder);
  const variables = unresolvedVariablesRead(scope, [
    text,
    ...compiled.headers.map((h) => h.value),
    compiled.body,
  ]);
  for (const detail of variables.details) unresolved.push(detail.placeholder);
  if (unresolved.length > 0 && !block.skipVariablesCheck) {
    const texts = [
      rendered,
      ...headers.map((h) => h.rendered),
      ...(body === undefined ? [] : [body]),
      variables,
    ];
    return {
      skip: {
        cause: 'unresolved',
        block: block.index,
        request: index,
        unresolved: [...new Set(unresolved)],
        missing: missingVariables(texts),
        reason: unresolvedReason([...new Set(unresolved)], texts),
      },
    };
  }
  const settings =
    headers.length === 0
      ? plainBuildSettings(run)
      : buildSettings(
          run,
          headers.map((h) => [h.name, h.rendered.text] as const),
        );
  const built = buildOne(run, rendered.text, body?.text, sendTarget, settings);
  if (built instanceof BuildError) return { invalid: built.message };
  return { built, scope, meta, oastIds };
}

function oastOff(block: HttpBlock, index: number): SkippedRequest {
  return {
    cause: 'oast-off',
    block: block.index,
    request: index,
    unresolved: ['{{interactsh-url}}'],
    missing: [],
    reason: 'out-of-band testing is off (-ni); the request needs a callback name ({{interactsh-url}})',
  };
}

/**
 * The `variables:` entries the request reads that could not be evaluated: their text would be sent
 * as written, so the request is skipped for them as for its own placeholders, as nuclei does.
 */
function unresolvedVariablesRead(
  scope: RequestScope,
  texts: readonly (TemplateString | undefined)[],
): { readonly details: readonly UnresolvedPlaceholder[] } {
  if (scope.unresolvedVariables.size === 0) return { details: [] };
  const details: UnresolvedPlaceholder[] = [];
  for (const [name, failed] of scope.unresolvedVariables)
    if (texts.some((text) => text?.variables.includes(name))) details.push(...failed);
  return { details };
}

/**
 * Why a request could not be built: the placeholders no variable fills (with the `-var` that would),
 * then each one whose evaluation failed, with the error (which names functions and types, never values).
 */
function unresolvedReason(
  placeholders: readonly string[],
  texts: readonly { readonly details: readonly UnresolvedPlaceholder[] }[],
): string {
  const failed = new Map<string, string>();
  for (const detail of texts.flatMap((text) => text.details))
    if (detail.missing.length === 0 && detail.error !== undefined)
      failed.set(detail.placeholder, detail.error);
  const unfilled = placeholders.filter((placeholder) => !failed.has(placeholder));
  const parts = [...failed].map(([placeholder, error]) => `${placeholder} failed: ${error}`);
  if (unfilled.length > 0)
    parts.unshift(
      `unresolved ${unfilled.join(', ')}; give the value${unfilled.length > 1 ? 's' : ''} with -var name=value`,
    );
  return parts.join('; ');
}

/** The variables that left placeholders of a request unresolved (payload values are in the request's). */
function missingVariables(
  texts: readonly { readonly details: readonly UnresolvedPlaceholder[] }[],
): string[] {
  return [...new Set(texts.flatMap((text) => text.details.flatMap((detail) => detail.missing)))];
}

/** Rendered headers of a block without `headers:`: shared, never changed. */
const NO_RENDERED_HEADERS: readonly { name: string; rendered: ReturnType<TemplateString['render']> }[] = [];

function plainBuildSettings(run: BlockRun): BuildSettings {
  run.plainBuild ??= buildSettings(run, []);
  return run.plainBuild;
}

function buildSettings(run: BlockRun, blockHeaders: BuildSettings['blockHeaders']): BuildSettings {
  const { options } = run.state.given;
  return {
    blockHeaders,
    extraHeaders: options.headers ?? [],
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    disablePathAutomerge: run.block.disablePathAutomerge,
  };
}

function buildOne(
  run: BlockRun,
  text: string,
  body: string | undefined,
  target: TargetUrl | undefined,
  settings: BuildSettings,
): BuiltRequest | BuildError {
  const { block } = run;
  if (block.requests.kind === 'path') {
    return buildPathRequest(
      {
        method: block.requests.method,
        url: text,
        ...(body === undefined ? {} : { body }),
        ...(target?.query === undefined || block.selfContained ? {} : { targetQuery: target.query }),
      },
      settings,
    );
  }
  if (target === undefined) return new BuildError('the raw request has no target to go to');
  return buildRawRequest(text, target, settings, block.unsafe);
}

/**
 * A self-contained raw request names its URL in the request line; it is sent there. A relative
 * request line (`GET / HTTP/1.1`) goes to `http://` + its Host header, as nuclei sends it.
 */
function selfContainedTarget(text: string): TargetUrl | BuildError {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('@'));
  const url = (lines[at] ?? '').trim().split(/\s+/)[1] ?? '';
  const relativeTo = url.startsWith('/') ? hostHeader(lines.slice(at + 1)) : undefined;
  const parsed = parseTargetUrl(relativeTo === undefined ? url : `http://${relativeTo}`);
  if (parsed instanceof TargetError || (parsed.scheme !== 'http' && parsed.scheme !== 'https')) {
    return new BuildError(
      `a self-contained raw request needs an absolute URL in its request line, or a relative one and a Host header, got "${url}"`,
    );
  }
  const { scheme, host, hostname, port } = parsed;
  return { scheme, host, hostname, port, path: '' };
}

/** The value of the Host header among a raw request's header lines. */
function hostHeader(headerLines: readonly string[]): string | undefined {
  for (const line of headerLines) {
    if (line.trim() === '') return undefined;
    const match = /^host:(.*)$/i.exec(line.trim());
    if (match !== null) return (match[1] ?? '').trim();
  }
  return undefined;
}

function targetValues(
  state: RunState,
  target: TargetUrl | undefined,
  trim: boolean,
): ReadonlyMap<string, Value> {
  if (target === undefined) return EMPTY;
  const slot = trim ? 1 : 0;
  if (target === state.given.target) {
    const cached = state.targetValues.ofRunTarget[slot];
    if (cached !== undefined) return cached;
  }
  const key = `${target.scheme}://${target.host}|${trim}`;
  let values = state.targetValues.byOrigin.get(key);
  if (values === undefined) {
    values = new Map(Object.entries(targetVariables(target, { trimTrailingSlash: trim })));
    state.targetValues.byOrigin.set(key, values);
  }
  if (target === state.given.target) state.targetValues.ofRunTarget[slot] = values;
  return values;
}

const EMPTY: ReadonlyMap<string, Value> = new Map();
const FINDINGS_ONLY = { findingsOnly: true } as const;
const EVERY_RESULT = { findingsOnly: false } as const;

function firstValues(
  dynamic: ReadonlyMap<string, readonly string[]> | undefined,
): ReadonlyMap<string, Value> {
  if (dynamic === undefined || dynamic.size === 0) return EMPTY;
  const out = new Map<string, Value>();
  for (const [name, values] of dynamic) if (values[0] !== undefined) out.set(name, values[0]);
  return out;
}

/**
 * Evaluates every response of the chain, newest first (nuclei's response chain); the earlier hops
 * are evaluated without their bodies, as nuclei keeps only the final body.
 */
function evaluateChain(
  run: BlockRun,
  index: number,
  hops: readonly ExchangeHop[],
  scope: RequestScope,
  meta: Record<string, string>,
  carry: Carry | undefined,
  unsafe: boolean,
  dnsValues: ReadonlyMap<string, Value>,
  interaction?: Interaction,
): void {
  const { state } = run;
  const metaValues: ReadonlyMap<string, Value> =
    Object.keys(meta).length === 0 ? EMPTY : new Map(Object.entries(meta));
  for (let at = hops.length - 1; at >= 0; at--) {
    const hop = hops[at] as ExchangeHop;
    const final = at === hops.length - 1;
    const response = final ? hop.response : { ...hop.response, body: Buffer.alloc(0) };
    let dump: string | undefined;
    const requestDump = (): string => {
      dump ??= isRaw(hop.sent) ? dumpRawRequest(hop.sent.bytes) : dumpRequest(hop.sent);
      return dump;
    };
    const own = responseVariables({
      response: {
        status: response.statusCode,
        statusText: response.reason,
        httpVersion: response.httpVersion.startsWith('HTTP/')
          ? response.httpVersion.slice(5)
          : response.httpVersion,
        headers: response.headers,
        body: response.body,
        head: response.rawHeadBytes,
      },
      request: requestDump,
      host: state.given.base.input,
      matched: hop.url,
      durationMs: response.durationMs,
    }).variables;
    const history = run.compiled.readsHistory;
    if (history) carry?.history.record(index + 1, own);
    // Lowest first: request scope, earlier blocks, earlier requests, payload values, this response,
    // this response under its indexed names.
    const data = new LayeredScope([
      scope,
      state.shared.previous,
      history ? (carry?.history ?? EMPTY) : EMPTY,
      metaValues,
      own,
      run.readsIp ? connectionValues(hop, dnsValues) : dnsValues,
      history ? indexedValues(index + 1, own) : EMPTY,
      interaction === undefined ? EMPTY : interactionValues(interaction),
    ]);
    // Extracted values of a response whose matchers failed are only wanted by a result listener.
    const result = run.compiled.operators.execute(
      { variables: data, onDslError: run.onDslError },
      state.given.options.onResult === undefined ? FINDINGS_ONLY : EVERY_RESULT,
    );
    state.given.options.onResult?.({
      block: run.block.index,
      url: hop.url,
      status: response.statusCode,
      result,
    });
    share(run, own, result);
    if (carry !== undefined)
      for (const [name, values] of result.dynamicValues) carry.dynamic.set(name, values);
    updateFlowValue(run, result);
    // Dumps and the curl command are only built for what is reported.
    const facts = (): ResponseFacts => ({
      matchedAt: hop.url,
      request: requestDump(),
      response: dumpResponse(response),
      truncated: final && (response.truncatedAt !== undefined || response.cutShort !== undefined),
      ...(unsafe || isRaw(hop.sent) ? {} : { curlCommand: curlCommand(hop.sent) }),
      ...(hop.response.remoteAddress === undefined ? {} : { ip: hop.response.remoteAddress }),
      meta,
      ...(interaction === undefined ? {} : { interaction: eventInteraction(interaction) }),
    });
    if (result.findings.length === 0) {
      if (state.given.options.matcherStatus === true) state.outcome.lastUnmatched = facts();
      continue;
    }
    if (run.stopped) return;
    const timestamp = rfc3339((state.given.options.now ?? (() => new Date()))());
    const reported = facts();
    for (const finding of result.findings) {
      const event = findingEvent(state.given.base, finding, reported, timestamp);
      state.outcome.events.push(event);
      state.given.options.onEvent?.(event);
    }
    state.outcome.matched = true;
    if (run.stopAtFirstMatch) {
      // nuclei: a result ends the response chain; only a matcher's match ends the block.
      if (result.matched) run.stopped = true;
      return;
    }
  }
}

/** What nuclei adds to a response's values: the address it went to (`ip`), and `cname` when read. */
function connectionValues(
  hop: ExchangeHop,
  dnsValues: ReadonlyMap<string, Value>,
): ReadonlyMap<string, Value> {
  const ip = hop.response.remoteAddress;
  if (ip === undefined) return dnsValues;
  const values = new Map(dnsValues);
  values.set('ip', ip);
  return values;
}

/** nuclei's flow rule for `http(N)`. */
function updateFlowValue(run: BlockRun, result: OperatorResult): void {
  if (result.hasResult) {
    if (result.matched || !run.hasMatchers) run.flowValue = true;
  } else if (!run.hasOperators) run.flowValue = true;
}

/** Values later blocks see: extracted values, and this response's values under `http_…` names. */
function share(run: BlockRun, own: ReadonlyMap<string, Value>, result: OperatorResult): void {
  const { state, block } = run;
  if (block.id !== undefined) {
    for (const [name, value] of own) state.shared.previous.set(`${block.id}_${name}`, value);
  }
  if (state.given.shareContext === 'none') return;
  for (const [name, value] of own) {
    state.shared.context.set(`http_${name}`, value);
    if (block.id !== undefined) state.shared.context.set(`http_${block.id}_${name}`, value);
  }
  for (const [name, values] of result.dynamicValues) {
    if (state.given.shareContext === 'flow') {
      state.shared.context.set(name, values.length === 1 ? (values[0] as string) : [...values]);
      continue;
    }
    values.forEach((value, i) => {
      state.shared.context.set(i === 0 ? name : `${name}${i}`, value);
    });
  }
}
