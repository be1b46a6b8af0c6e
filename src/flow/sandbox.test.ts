import { describe, expect, it } from 'vitest';
import { type FlowHost, FlowHostError, type FlowValue, runFlowScript } from './index.js';

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
