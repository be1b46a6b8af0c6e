import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { type RunOptions, runTemplate } from './index.js';
import { type FixtureServer, fixtureServer } from './testing/server.js';
import { template } from './testing/templates.js';

let server: FixtureServer;
const client = new HttpClient({ timeoutMs: 5000 });
const dispatch = transportDispatch(client);

beforeAll(async () => {
  server = await fixtureServer([
    { path: '/list', respond: { body: 'id=7; id=8; id=9;' } },
    { path: '/one', respond: { body: 'id=42;' } },
    { path: '/none', respond: { body: 'nothing here' } },
    { path: /^\/item\/\d+$/, respond: (r) => ({ body: `item ${r.path.slice(6)}` }) },
    { path: '/echo', respond: (r) => ({ body: `got ${r.query.toString()}` }) },
  ]);
});

afterAll(async () => {
  await server.close();
  await client.close();
});

/** A template: block 1 reads `firstPath` and extracts `id` values; block 2 asks for `/item/{{id}}`. */
const flowTemplate = (flow: string, firstPath = '/list', extra = '') =>
  template(`id: js-flow
info:
  name: flow
  author: tester
  severity: low
${extra}flow: |
${flow
  .trim()
  .split('\n')
  .map((line) => `  ${line}`)
  .join('\n')}
http:
  - id: listing
    method: GET
    path: ["{{BaseURL}}${firstPath}"]
    matchers:
      - type: word
        internal: true
        words: ["id="]
    extractors:
      - type: regex
        name: ids
        internal: true
        group: 1
        regex: ['id=(\\d+);']
  - id: item
    method: GET
    path: ["{{BaseURL}}/item/{{id}}"]
    matchers:
      - type: word
        words: ["item"]
  - method: GET
    path: ["{{BaseURL}}/echo?v={{v}}"]
    matchers:
      - type: word
        words: ["got"]
`);

const run = (flow: string, firstPath?: string, options: Partial<RunOptions> = {}, extra?: string) =>
  runTemplate(flowTemplate(flow, firstPath, extra), server.url, { dispatch, ...options });

const logged = async (flow: string, firstPath?: string, extra?: string) => {
  const lines: string[] = [];
  const result = await run(flow, firstPath, { onFlowLog: (line) => lines.push(line) }, extra);
  return { lines, result };
};

const matchedAt = (result: Awaited<ReturnType<typeof run>>) =>
  result.events.map((e) => (e['matched-at'] ?? '').slice(server.url.length));

describe('JavaScript flows', () => {
  it('runs a block inside an if only when the condition block matched', async () => {
    const flow = 'if (http(1)) {\n  set("id", "5")\n  http(2)\n}';
    expect(matchedAt(await run(flow, '/list'))).toEqual(['/item/5']);
    const before = server.requests.length;
    const missed = await run(flow, '/none');
    expect(missed.events).toEqual([]);
    expect(server.requests.length).toBe(before + 1);
  });

  it('loops over every extracted value with iterate() and set()', async () => {
    const result = await run(
      'http(1)\nfor (let id of iterate(template["ids"])) {\n  set("id", id)\n  http(2)\n}',
    );
    expect(matchedAt(result)).toEqual(['/item/7', '/item/8', '/item/9']);
    expect(result.flowError).toBeUndefined();
  });

  it('keeps several extracted values as a list and one value as itself, as nuclei does', async () => {
    const flow = 'http(1)\nlog(Array.isArray(template.ids) + " " + JSON.stringify(template.ids))';
    expect((await logged(flow, '/list')).lines).toEqual(['true ["7","8","9"]']);
    expect((await logged(flow, '/one')).lines).toEqual(['false "42"']);
  });

  it('reads variables, values set by the flow and response values through template', async () => {
    const flow = [
      'http("listing")',
      'set("greeting", template.prefix + "-" + template["ids"][0])',
      'log(template.greeting)',
      'log(template.http_status_code)',
      'log("missing" in template ? "yes" : template.missing === undefined ? "undefined" : "?")',
    ].join('\n');
    const { lines } = await logged(flow, '/list', 'variables:\n  prefix: "v{{to_upper(\'x\')}}"\n');
    expect(lines).toEqual(['vX-7', '200', 'undefined']);
  });

  it('sends what set() gave in the next request', async () => {
    const result = await run('set("v", "w1")\nhttp(3)');
    expect(result.events.map((e) => e['matched-at'])).toEqual([`${server.url}/echo?v=w1`]);
  });

  it('ends early with return', async () => {
    const before = server.requests.length;
    const result = await run('if (!http(1)) {\n  return\n}\nset("id", "1")\nhttp(2)', '/none');
    expect(result.events).toEqual([]);
    expect(result.flowError).toBeUndefined();
    expect(server.requests.length).toBe(before + 1);
  });

  it('runs every block with http() and several with http(a, b)', async () => {
    const all = await run('set("id", "3")\nset("v", "w")\nhttp()');
    expect(matchedAt(all)).toEqual(['/item/3', '/echo?v=w']);
    const { lines } = await logged('set("id", "4")\nlog(http("item", 1) + " " + http(1, "2"))', '/none');
    expect(lines).toEqual(['true true']);
  });

  it('reports the same events as the plain chain when the chain is written as a script', async () => {
    const v = 'variables:\n  v: "x"\n';
    const chain = await run('http(1) && http(3)', '/list', {}, v);
    const script = await run('let found = http(1) && http(3);\nreturn found;', '/list', {}, v);
    // The two runs may straddle a second: the timestamp and the server's Date header are left out.
    const strip = (r: typeof chain) =>
      r.events.map(({ timestamp: _t, ...rest }) => ({
        ...rest,
        response: rest.response?.replace(/^Date: .*$/m, 'Date: -'),
      }));
    expect(strip(script)).toEqual(strip(chain));
    expect(script.events).toHaveLength(1);
  });

  it('reports a block reference computed at run time that names no block, and goes on', async () => {
    const { lines, result } = await logged('const n = 2 + 5\nlog(String(http(n)))\nlog("after")');
    expect(lines).toEqual(['false', 'after']);
    expect(result.flowError).toMatch(/http\("7"\) names no request block; the template has 3/);
  });

  it('reports an exception with its line', async () => {
    const result = await run('http(1)\nnotAFunction()');
    expect(result.flowError).toMatch(/ReferenceError: 'notAFunction' is not defined \(flow line 2\)/);
    expect(result.requests).toBe(1);
  });
});

describe('the flow sandbox', () => {
  it('stops an endless loop after its CPU time with a clear error', async () => {
    const started = performance.now();
    const result = await run('http(1)\nwhile (true) {}', '/list', { flowLimits: { cpuMs: 200 } });
    expect(result.flowError).toMatch(/ran longer than its 200 ms of CPU time .* and was stopped/);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result.requests).toBe(1);
  });

  it('does not count the time requests take against the CPU time', async () => {
    const result = await run('for (let i = 0; i < 5; i++) {\n  set("id", String(i))\n  http(2)\n}', '/list', {
      flowLimits: { cpuMs: 50 },
    });
    expect(result.flowError).toBeUndefined();
    expect(result.events).toHaveLength(5);
  });

  it('stops a loop of requests that never ends after the most block runs', async () => {
    const before = server.requests.length;
    const result = await run('while (true) {\n  try { http(1) } catch (e) {}\n}', '/none', {
      flowLimits: { blockRuns: 5, cpuMs: 500 },
    });
    expect(result.flowError).toMatch(/ran more than 5 request blocks .* and was stopped/);
    expect(server.requests.length).toBe(before + 5);
  });

  it('stops a flow that takes more memory than allowed', async () => {
    // Megabyte strings reach the limit in a few dozen steps, long before the CPU limit (raised
    // here so that a busy machine cannot hit it first).
    const result = await run('const a = []\nwhile (true) a.push("x".repeat(1 << 20) + a.length)', '/list', {
      flowLimits: { memoryBytes: 32 * 1024 * 1024, cpuMs: 20_000 },
    });
    expect(result.flowError).toMatch(/out of memory/);
  });

  it('stops deep recursion', async () => {
    const result = await run('function f(n) { return f(n + 1) + 1 }\nf(0)');
    expect(result.flowError).toMatch(/stack overflow|recursed too deeply/);
    // The engine keeps working after it.
    expect((await run('set("v", "x")\nhttp(1) && http(3)')).events).toHaveLength(1);
  });

  it('gives the flow nothing of Node: no process, require, module, fetch or host object', async () => {
    const { lines } = await logged(
      'log([typeof process, typeof require, typeof module, typeof fetch, typeof __host, typeof globalThis.__host].join(","))',
    );
    expect(lines).toEqual(['undefined,undefined,undefined,undefined,undefined,undefined']);
    const viaRequire = await run('require("fs").readFileSync("/etc/passwd")');
    expect(viaRequire.flowError).toMatch(/ReferenceError: 'require' is not defined/);
    const viaFunction = await run('Function("return process")().exit(1)');
    expect(viaFunction.flowError).toMatch(/ReferenceError: 'process' is not defined/);
  });

  it('stops when the scan is stopped', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const result = await run('while (true) {\n  http(1)\n}', '/none', {
      signal: controller.signal,
      flowLimits: { cpuMs: 60_000, blockRuns: 1_000_000 },
    });
    expect(result.aborted).toBe(true);
    expect(result.flowError).toBeUndefined();
  });
});
