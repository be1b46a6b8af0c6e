/**
 * Runs a template's `flow:` JavaScript in a sandbox. The script runs in QuickJS compiled to
 * WebAssembly (quickjs-emscripten): its own heap and interpreter, with nothing of Node in reach (no
 * require, process, fs or network), a memory limit, a stack limit and an interrupt handler that ends
 * it after a CPU budget or when the scan is stopped. node:vm shares the host's heap and event loop,
 * so it is no sandbox; isolated-vm needs a native build. The asyncify build lets the script's
 * synchronous `http(1)` wait for the engine's request.
 *
 * QuickJS's own memory limit counts allocations, not bytes, in its WebAssembly build (it bounds one
 * allocation, not the total), so each module also gets a WebAssembly memory that cannot grow past
 * the limit: past it, allocations fail and the script gets an out-of-memory error.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  newQuickJSAsyncWASMModuleFromVariant,
  newVariant,
  type QuickJSAsyncContext,
  type QuickJSAsyncRuntime,
  type QuickJSHandle,
} from 'quickjs-emscripten-core';

/** A value passed between the script and the engine. */
export type FlowValue = string | number | boolean | null | readonly FlowValue[];

/** What the script reaches: every function it calls ends here, nowhere else. */
export interface FlowHost {
  /** `http(…)`: runs the blocks `refs` names (all blocks when empty); true when one matched. */
  http(refs: readonly string[]): Promise<boolean>;
  /** `set(name, value)`. */
  set(name: string, value: FlowValue): void;
  /** `template[name]`: undefined when the name is not in the template context. */
  get(name: string): FlowValue | undefined;
  /** The names in the template context. */
  names(): readonly string[];
  /** `log(…)`, the value made text. */
  log(message: string): void;
}

export interface FlowLimits {
  /** Time the script itself may run, requests not counted. */
  readonly cpuMs: number;
  /** Memory of the whole engine the script runs in (at least {@link MIN_FLOW_MEMORY_BYTES}). */
  readonly memoryBytes: number;
  readonly stackBytes: number;
}

/** The engine's WebAssembly module starts with 16 MiB; a few more let a script run at all. */
export const MIN_FLOW_MEMORY_BYTES = 24 * 1024 * 1024;
const WASM_PAGE = 64 * 1024;
const INITIAL_PAGES = (16 * 1024 * 1024) / WASM_PAGE;
/**
 * `WebAssembly.Memory`: the Node 20 typings do not declare its constructor's value, only the DOM
 * library does (which the dashboard's JSX typings load), so it is typed here from the global.
 */
const WasmMemory = (
  globalThis as unknown as { WebAssembly: { Memory: new (d: object) => WebAssembly.Memory } }
).WebAssembly.Memory;

export const DEFAULT_FLOW_LIMITS: FlowLimits = {
  cpuMs: 2_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
};

export type FlowOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly aborted: boolean; readonly message: string };

/** An error a host function raises in the script (a limit reached): the script may not go on. */
export class FlowHostError extends Error {
  override readonly name = 'FlowHostError';
}

/** The script's environment, built from the host functions; `__host` is removed before the flow runs. */
const PRELUDE = `(function (host) {
  const toText = (value) => {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  };
  globalThis.http = function (...refs) { return host.http(refs.map((ref) => String(ref))); };
  globalThis.set = function (name, value) { host.set(String(name), value === undefined ? null : value); return null; };
  globalThis.log = function (value) { host.log(toText(value)); return value; };
  globalThis.iterate = function (...values) {
    const out = [];
    for (const value of values) {
      if (value === null || value === undefined) continue;
      if (Array.isArray(value)) out.push(...value); else out.push(value);
    }
    return out;
  };
  globalThis.Dedupe = class Dedupe {
    constructor() { this.seen = new Set(); }
    Add(...values) { for (const value of iterate(...values)) this.seen.add(value); }
    Values() { return [...this.seen]; }
  };
  globalThis.template = new Proxy({}, {
    get: (_, name) => (typeof name === 'string' ? host.get(name) : undefined),
    has: (_, name) => typeof name === 'string' && host.names().includes(name),
    ownKeys: () => host.names(),
    getOwnPropertyDescriptor: (_, name) =>
      typeof name === 'string' && host.names().includes(name)
        ? { value: host.get(name), enumerable: true, configurable: true, writable: false }
        : undefined,
    set: () => false,
  });
})(globalThis.__host);
delete globalThis.__host;`;

/**
 * A module and the one runtime it keeps for its life: each run gets a new context (its own global
 * object). The runtime is not disposed between runs because the asyncify build forgets a runtime's
 * callbacks before freeing it, so freeing one whose functions are still alive throws.
 */
interface Engine {
  readonly runtime: QuickJSAsyncRuntime;
  readonly pages: number;
}

/** What a run waiting for an engine is given: a module set free, or leave to make a new one. */
type Grant = Engine | 'new';

interface Waiter {
  readonly pages: number;
  readonly resolve: (grant: Grant) => void;
}

/**
 * The modules in existence, in flight and idle, at most `max` of them for bounded runs; further runs
 * wait in order for one. Each module holds a WebAssembly memory of 16 MiB at least, and a flow run
 * holds its module while it waits on HTTP, so without a bound the runs in flight (the scan's `-c`)
 * set the memory. Runs outside the bound (a login's flow, which bounded runs may be waiting on)
 * never wait, and the modules they add beyond the bound are let go when they end.
 */
class EnginePool {
  private readonly idle: Engine[] = [];
  private readonly waiters: Waiter[] = [];
  private existing = 0;
  private highest = 0;

  constructor(readonly max: number) {}

  /** Modules in existence now, and the most there have been at once. */
  get counts(): { readonly existing: number; readonly highest: number } {
    return { existing: this.existing, highest: this.highest };
  }

  /** An engine of `pages`; rejects with the signal's reason when it aborts while waiting. */
  async take(pages: number, bounded: boolean, signal?: AbortSignal): Promise<Engine> {
    const grant = this.grant(pages, bounded) ?? (await this.wait(pages, signal));
    if (grant !== 'new') return grant;
    try {
      return await newEngine(pages);
    } catch (error) {
      this.existing--;
      this.serveWaiters();
      throw error;
    }
  }

  /** Gives the engine back: kept for the next run when fit and within the bound, else let go. */
  give(engine: Engine, reusable: boolean): void {
    if (reusable && this.existing <= this.max) this.idle.push(engine);
    // A module let go is left to the garbage collector with its memory.
    else this.existing--;
    this.serveWaiters();
  }

  private grant(pages: number, bounded: boolean): Grant | undefined {
    const at = this.idle.findIndex((entry) => entry.pages === pages);
    if (at >= 0) return this.idle.splice(at, 1)[0] as Engine;
    if (!bounded || this.existing < this.max) {
      this.existing++;
      this.highest = Math.max(this.highest, this.existing);
      return 'new';
    }
    // An idle module of another memory size makes room for one of this size.
    if (this.idle.shift() !== undefined) return 'new';
    return undefined;
  }

  private wait(pages: number, signal: AbortSignal | undefined): Promise<Grant> {
    return new Promise<Grant>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        pages,
        resolve: (grant) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(grant);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private serveWaiters(): void {
    for (let first = this.waiters[0]; first !== undefined; first = this.waiters[0]) {
      const grant = this.grant(first.pages, true);
      if (grant === undefined) return;
      this.waiters.shift();
      first.resolve(grant);
    }
  }
}

/**
 * At most this many modules for bounded flow runs. Measured: modules held at once by runs waiting on
 * their requests added 3 MB of resident memory for 1, 18 MB for 4, 51 MB for 8 and 66 MB for 25
 * (16 MiB each reserved); 25 runs at once of a flow of three 5 ms requests completed 37, 58, 77 and
 * 113 flows/s with 1, 4, 8 and 25 modules. Four keep the library scan of BENCHMARKS.md under its
 * 400 MB with room to spare, at half the rate of 25 for flows alone: a scan's flow templates are
 * few among its templates (a run waiting for an engine holds one of the scan's `-c` places).
 */
const MAX_ENGINES = 4;
const engines = new EnginePool(MAX_ENGINES);

/** The flow engines' modules now and at most so far (tests check the bound with it). */
export function flowEngineCounts(): {
  readonly existing: number;
  readonly highest: number;
  readonly max: number;
} {
  return { ...engines.counts, max: engines.max };
}

async function newEngine(pages: number): Promise<Engine> {
  const { variant, compiled } = await compiledEngine();
  const memory = new WasmMemory({ initial: INITIAL_PAGES, maximum: pages });
  const module = await newQuickJSAsyncWASMModuleFromVariant(
    newVariant(variant, { wasmMemory: memory, wasmModule: compiled }),
  );
  return { runtime: module.newRuntime(), pages };
}

/** The variant and its WebAssembly compiled once: compiling it for every module costs ~40 ms. */
const compiledEngine = memoize(async () => {
  const variant = asyncVariant(await import('@jitl/quickjs-wasmfile-release-asyncify'));
  const bytes = await readFile(
    createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-asyncify/wasm'),
  );
  const compiled = await (
    globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<object> } }
  ).WebAssembly.compile(bytes);
  return { variant, compiled };
});

function memoize<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

type AsyncVariant = Extract<Parameters<typeof newVariant>[0], { readonly type: 'async' }>;

/** The variant from its package, whose typings describe the CommonJS wrapping of its default. */
function asyncVariant(loaded: unknown): AsyncVariant {
  let value = loaded;
  while (typeof value === 'object' && value !== null && 'default' in value) value = value.default;
  return value as AsyncVariant;
}

/**
 * Runs `source` with `host`'s functions. Resolves with the outcome, never rejects for what the script
 * does: syntax errors, exceptions and limits reached are reported in the outcome. A bounded run
 * waits for one of the {@link MAX_ENGINES} engines when all are in use (the signal ends the wait);
 * `bounded: false` is for runs that bounded runs may be waiting on (a login's flow).
 */
export async function runFlowScript(
  source: string,
  host: FlowHost,
  limits: FlowLimits = DEFAULT_FLOW_LIMITS,
  signal?: AbortSignal,
  bounded = true,
): Promise<FlowOutcome> {
  const memoryBytes = Math.max(limits.memoryBytes, MIN_FLOW_MEMORY_BYTES);
  const pages = Math.ceil(memoryBytes / WASM_PAGE);
  let engine: Engine;
  try {
    engine = await engines.take(pages, bounded, signal);
  } catch (error) {
    if (signal?.aborted === true) return { ok: false, aborted: true, message: 'the scan was stopped' };
    throw error;
  }
  const { runtime } = engine;
  const clock = new CpuClock(limits.cpuMs);
  let hostError: string | undefined;
  let reusable = true;
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => signal?.aborted === true || hostError !== undefined || clock.spent());
  const context = runtime.newContext();
  try {
    installHost(context, host, clock, (message) => {
      hostError ??= message;
    });
    const prelude = context.evalCode(PRELUDE, 'prelude.js');
    if (prelude.error !== undefined) {
      const message = errorText(context, prelude.error);
      prelude.error.dispose();
      throw new Error(`the flow environment did not start: ${message}`);
    }
    prelude.value.dispose();
    clock.start();
    // The flow runs as a function body so that `return` ends it early; the wrapper stays on the
    // first line so that line numbers in errors are the template's.
    const result = await context.evalCodeAsync(`(function () {${source}\n})()`, 'flow');
    clock.stop();
    if (result.error === undefined) {
      result.value.dispose();
      return { ok: true };
    }
    // A module whose script failed (out of memory, interrupted) is not trusted with another run.
    reusable = false;
    const message = errorText(context, result.error);
    result.error.dispose();
    if (signal?.aborted === true) return { ok: false, aborted: true, message: 'the scan was stopped' };
    if (hostError !== undefined) return { ok: false, aborted: false, message: hostError };
    if (clock.spent()) {
      return {
        ok: false,
        aborted: false,
        message: `the flow ran longer than its ${limits.cpuMs} ms of CPU time (an endless loop?) and was stopped`,
      };
    }
    return { ok: false, aborted: false, message };
  } catch (error) {
    // A stack overflow of the interpreter itself (deep recursion) leaves the module unusable.
    reusable = false;
    const text = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      aborted: signal?.aborted === true,
      message: /call stack/i.test(text) ? 'the flow recursed too deeply and was stopped' : text,
    };
  } finally {
    engines.give(engine, released(runtime, context) && reusable);
  }
}

/** Frees the run's context; false when the module is not fit for another run. */
function released(runtime: QuickJSAsyncRuntime, context: QuickJSAsyncContext): boolean {
  try {
    runtime.removeInterruptHandler();
    context.dispose();
    return true;
  } catch {
    return false;
  }
}

/** CPU time of the script: the clock stops while a request runs. */
class CpuClock {
  private used = 0;
  private since: number | undefined;
  constructor(private readonly budgetMs: number) {}
  start(): void {
    this.since = performance.now();
  }
  stop(): void {
    if (this.since !== undefined) this.used += performance.now() - this.since;
    this.since = undefined;
  }
  spent(): boolean {
    const running = this.since === undefined ? 0 : performance.now() - this.since;
    return this.used + running > this.budgetMs;
  }
}

function installHost(
  context: QuickJSAsyncContext,
  host: FlowHost,
  clock: CpuClock,
  onHostError: (message: string) => void,
): void {
  const object = context.newObject();
  const raise = (error: unknown): { error: QuickJSHandle } => {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof FlowHostError) onHostError(message);
    return { error: context.newError(message) };
  };
  const http = context.newAsyncifiedFunction('http', async (refsHandle) => {
    const refs = context.dump(refsHandle) as unknown;
    clock.stop();
    try {
      const matched = await host.http(Array.isArray(refs) ? refs.map(String) : []);
      return matched ? context.true : context.false;
    } catch (error) {
      return raise(error);
    } finally {
      clock.start();
    }
  });
  const set = context.newFunction('set', (name, value) => {
    try {
      host.set(context.getString(name), toFlowValue(context.dump(value)));
    } catch (error) {
      return raise(error);
    }
    return undefined;
  });
  const get = context.newFunction('get', (name) => {
    const value = host.get(context.getString(name));
    return value === undefined ? context.undefined : toHandle(context, value);
  });
  const names = context.newFunction('names', () => toHandle(context, [...host.names()]));
  const log = context.newFunction('log', (message) => {
    host.log(context.getString(message));
  });
  for (const [name, fn] of [
    ['http', http],
    ['set', set],
    ['get', get],
    ['names', names],
    ['log', log],
  ] as const) {
    context.setProp(object, name, fn);
    fn.dispose();
  }
  context.setProp(context.global, '__host', object);
  object.dispose();
}

function toHandle(context: QuickJSAsyncContext, value: FlowValue): QuickJSHandle {
  if (value === null) return context.null;
  if (typeof value === 'string') return context.newString(value);
  if (typeof value === 'number') return context.newNumber(value);
  if (typeof value === 'boolean') return value ? context.true : context.false;
  const array = context.newArray();
  value.forEach((item, index) => {
    const handle = toHandle(context, item);
    context.setProp(array, index, handle);
    handle.dispose();
  });
  return array;
}

/** A value from the script as the engine keeps it: objects become their JSON text. */
function toFlowValue(value: unknown): FlowValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(toFlowValue);
  return JSON.stringify(value) ?? null;
}

function errorText(context: QuickJSAsyncContext, handle: QuickJSHandle): string {
  const error = context.dump(handle) as unknown;
  if (typeof error !== 'object' || error === null) return `the flow threw ${JSON.stringify(error)}`;
  const { name, message, stack } = error as { name?: unknown; message?: unknown; stack?: unknown };
  const where = typeof stack === 'string' ? /\(flow:(\d+):(\d+)\)|flow:(\d+):(\d+)/.exec(stack) : null;
  const line = where?.[1] ?? where?.[3];
  const text = `${typeof name === 'string' ? name : 'Error'}: ${typeof message === 'string' ? message : ''}`;
  return line === undefined ? text : `${text} (flow line ${line})`;
}
