import { describe, expect, it } from 'vitest';
import { type FlowHost, FlowHostError, type FlowValue, runFlowScript } from './index.js';
import { flowEngineCounts } from './sandbox.js';

/** A template context in a map; `http(…)` answers from `matches` and records what was asked. */
function memoryHost(initial: Record<string, FlowValue> = {}, matches: Record<string, boolean> = {}) {
  const context = new Map<string, FlowValue>(Object.entries(initial));
  const calls: string[][] = [];
  const lines: string[] = [];
  const host: FlowHost = {
    http: async (refs) => {
      calls.push([...refs]);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return refs.some((ref) => matches[ref] === true);
    },
    set: (name, value) => {
      context.set(name, value);
    },
    get: (name) => context.get(name),
    names: () => [...context.keys()],
    log: (line) => lines.push(line),
  };
  return { host, context, calls, lines };
}

describe('runFlowScript', () => {
  it('flattens arrays and skips null and undefined in iterate(), keeping strings whole', async () => {
    const { host, lines } = memoryHost({ list: ['a', 'b'], one: 'abc' });
    const outcome = await runFlowScript(
      'log(JSON.stringify(iterate(template.list, null, template.one, template.missing, 7, [8, [9]])))',
      host,
    );
    expect(outcome).toEqual({ ok: true });
    expect(lines).toEqual(['["a","b","abc",7,8,[9]]']);
  });

  it('keeps the first of equal values with Dedupe', async () => {
    const { host, lines } = memoryHost({ a: ['x', 'y'], b: 'x' });
    await runFlowScript(
      'const d = new Dedupe(); d.Add(template.a); d.Add(template.b, "z"); log(d.Values().join(","))',
      host,
    );
    expect(lines).toEqual(['x,y,z']);
  });

  it('passes http() arguments as text, and returns whether a block matched', async () => {
    const { host, calls, lines } = memoryHost({}, { '2': true, login: true });
    await runFlowScript('log([http(1), http(2), http("login", 3), http()].join(" "))', host);
    expect(calls).toEqual([['1'], ['2'], ['login', '3'], []]);
    expect(lines).toEqual(['false true true false']);
  });

  it('shows the whole template context to log(), and keeps set() values as the engine reads them', async () => {
    const { host, context, lines } = memoryHost({ token: 't1' });
    await runFlowScript(
      'set("n", 3); set("list", ["a", 1]); set("obj", { k: "v" }); set("none"); log(template)',
      host,
    );
    expect(context.get('n')).toBe(3);
    expect(context.get('list')).toEqual(['a', 1]);
    expect(context.get('obj')).toBe('{"k":"v"}');
    expect(context.get('none')).toBeNull();
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      token: 't1',
      n: 3,
      list: ['a', 1],
      obj: '{"k":"v"}',
      none: null,
    });
  });

  it('does not let the flow change the template context other than through set()', async () => {
    const { host, context } = memoryHost({ token: 't1' });
    await runFlowScript('template.token = "changed"; template.added = 1', host);
    expect(context.get('token')).toBe('t1');
    expect(context.has('added')).toBe(false);
  });

  it('reports a syntax error as an outcome, not an exception', async () => {
    const { host } = memoryHost();
    const outcome = await runFlowScript('if (', host);
    expect(outcome).toMatchObject({
      ok: false,
      aborted: false,
      message: expect.stringMatching(/^SyntaxError/),
    });
  });

  it('stops the flow at an error a host function raises, even when the flow catches it', async () => {
    const { host } = memoryHost();
    const failing: FlowHost = {
      ...host,
      http: async () => {
        throw new FlowHostError('too many blocks');
      },
    };
    const outcome = await runFlowScript('while (true) { try { http(1) } catch (e) {} }', failing, {
      cpuMs: 10_000,
      memoryBytes: 64 * 1024 * 1024,
      stackBytes: 256 * 1024,
    });
    expect(outcome).toEqual({ ok: false, aborted: false, message: 'too many blocks' });
  });

  it('starts each run with a fresh global object', async () => {
    const { host, lines } = memoryHost();
    await runFlowScript('globalThis.leak = "from an earlier run"', host);
    await runFlowScript('log(typeof leak)', host);
    expect(lines).toEqual(['undefined']);
  });
});

/** A host whose `http(…)` waits until `open()` is called, counting the runs inside it. */
function gatedHost() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { inside: 0, mostInside: 0 };
  const host: FlowHost = {
    http: async () => {
      state.inside++;
      state.mostInside = Math.max(state.mostInside, state.inside);
      await gate;
      state.inside--;
      return true;
    },
    set: () => {},
    get: () => undefined,
    names: () => [],
    log: () => {},
  };
  return { host, state, open };
}

/** Resolves once `check()` holds, polling: the runs reach their `http(…)` in their own time. */
async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; !check(); tries++) {
    if (tries > 2_000) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the flow engines', () => {
  it('never number more than their bound, and runs beyond it wait and then complete', async () => {
    const { max } = flowEngineCounts();
    const runs = max * 3;
    const { host, state, open } = gatedHost();
    const lines: string[] = [];
    const outcomes = Array.from({ length: runs }, (_, index) =>
      runFlowScript(`http(1); set("n", ${index})`, { ...host, set: (_, value) => lines.push(String(value)) }),
    );
    await until(() => state.inside === max);
    // Every engine is held by a run waiting on its request: the others wait for one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(state.inside).toBe(max);
    expect(flowEngineCounts().existing).toBe(max);
    open();
    expect(await Promise.all(outcomes)).toEqual(Array.from({ length: runs }, () => ({ ok: true })));
    expect(lines.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: runs }, (_, i) => i));
    expect(state.mostInside).toBe(max);
    expect(flowEngineCounts().highest).toBeLessThanOrEqual(max);
    expect(flowEngineCounts().existing).toBeLessThanOrEqual(max);
  });

  it('ends a run waiting for an engine when its signal aborts, and the bound still holds after', async () => {
    const { max } = flowEngineCounts();
    const { host, state, open } = gatedHost();
    const holding = Array.from({ length: max }, () => runFlowScript('http(1)', host));
    await until(() => state.inside === max);
    const controller = new AbortController();
    const waiting = runFlowScript('http(1)', host, undefined, controller.signal);
    controller.abort();
    expect(await waiting).toEqual({ ok: false, aborted: true, message: 'the scan was stopped' });
    open();
    expect(await Promise.all(holding)).toEqual(Array.from({ length: max }, () => ({ ok: true })));
    expect(await runFlowScript('http(1)', host)).toEqual({ ok: true });
    expect(flowEngineCounts().existing).toBeLessThanOrEqual(max);
  });

  it('runs a flow outside the bound while every engine is held, and lets its module go after', async () => {
    const { max } = flowEngineCounts();
    const { host, state, open } = gatedHost();
    const holding = Array.from({ length: max }, () => runFlowScript('http(1)', host));
    await until(() => state.inside === max);
    const { host: loginHost, lines } = memoryHost();
    expect(await runFlowScript('log("logged in")', loginHost, undefined, undefined, false)).toEqual({
      ok: true,
    });
    expect(lines).toEqual(['logged in']);
    expect(flowEngineCounts().existing).toBe(max);
    open();
    await Promise.all(holding);
  });
});
