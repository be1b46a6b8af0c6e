/**
 * `-mhe` over real sockets: a host that stops answering is given up on after its budget of failures
 * in a row, and nothing more goes to it; other hosts, and hosts that answer in between, are not.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, type HttpRequest, TransportError } from '../http/index.js';
import { startHost, type TestHost } from '../scan/testing/hosts.js';
import { HostErrorBudget, HostSkipped, type SkippedHost } from './host-errors.js';
import { chain, type Dispatch, retrying, transportDispatch } from './index.js';

let answering: TestHost;
/** Answers `/ok`; leaves every other request without an answer. */
let flaky: TestHost;
/** Accepts connections and never answers: every request to it times out. */
let silent: Server;
let silentPort: number;
let silentConnections = 0;
const client = new HttpClient({ timeoutMs: 150 });

beforeAll(async () => {
  answering = await startHost('127.0.0.1', () => ({ body: 'ok' }));
  flaky = await startHost('127.0.0.1', (request) =>
    request.path === '/ok' ? { body: 'ok' } : { delayMs: Number.POSITIVE_INFINITY },
  );
  silent = createServer((socket) => {
    silentConnections++;
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  await client.close();
  await Promise.all([answering.close(), flaky.close()]);
  silent.close();
});

let skips: SkippedHost[] = [];
afterEach(() => {
  skips = [];
  silentConnections = 0;
});

function budgeted(max: number, retries = 0): { dispatch: Dispatch; budget: HostErrorBudget } {
  const budget = new HostErrorBudget(max, (host) => skips.push(host));
  const dispatch = chain(transportDispatch(client), [budget.interceptor, retrying(retries)]);
  return { dispatch, budget };
}

function get(hostname: string, port: number, path = '/'): HttpRequest {
  return {
    method: 'GET',
    scheme: 'http',
    hostname,
    port,
    target: path,
    headers: [['Host', `${hostname}:${port}`]],
    body: '',
  };
}

async function outcome(dispatch: Dispatch, request: HttpRequest): Promise<string> {
  try {
    const sent = await dispatch(request, {});
    return `status ${sent.response.statusCode}`;
  } catch (error) {
    if (error instanceof HostSkipped) return 'skipped';
    if (error instanceof TransportError) return error.kind;
    throw error;
  }
}

describe('the host error budget', () => {
  it('skips a host after its budget of failures in a row, and opens no connection to it afterwards', async () => {
    const { dispatch, budget } = budgeted(3);
    const results: string[] = [];
    for (let i = 0; i < 5; i++) results.push(await outcome(dispatch, get('127.0.0.1', silentPort)));
    expect(results).toEqual(['timeout', 'timeout', 'timeout', 'skipped', 'skipped']);
    expect(silentConnections).toBe(3);
    expect(skips).toEqual([
      { host: `127.0.0.1:${silentPort}`, errors: 3, cause: expect.stringContaining('timed out') },
    ]);
    expect(budget.figures).toEqual({ hosts: 1, requestsNotSent: 2 });
  });

  it('says why a skipped request was not sent, naming the host and its last failure', async () => {
    const { dispatch } = budgeted(1);
    await outcome(dispatch, get('127.0.0.1', silentPort));
    const refusal = await dispatch(get('127.0.0.1', silentPort, '/x'), {}).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HostSkipped);
    expect((refusal as HostSkipped).url).toBe(`http://127.0.0.1:${silentPort}/x`);
    expect((refusal as Error).message).toMatch(
      new RegExp(`^127\\.0\\.0\\.1:${silentPort} was skipped after a failure \\(last: timed out`),
    );
  });

  it('starts the count again after any answer from the host', async () => {
    const { dispatch } = budgeted(2);
    const results: string[] = [];
    for (const path of ['/hang', '/ok', '/hang', '/ok', '/hang', '/hang', '/ok'])
      results.push(await outcome(dispatch, get('127.0.0.1', flaky.port, path)));
    expect(results).toEqual([
      'timeout',
      'status 200',
      'timeout',
      'status 200',
      'timeout',
      'timeout',
      'skipped',
    ]);
    expect(skips).toHaveLength(1);
  });

  it('keeps sending to other hosts, and to the same name on another port', async () => {
    const { dispatch } = budgeted(1);
    await outcome(dispatch, get('127.0.0.1', silentPort));
    expect(await outcome(dispatch, get('127.0.0.1', answering.port))).toBe('status 200');
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('skipped');
  });

  it('counts a request once, after its retries', async () => {
    const { dispatch } = budgeted(2, 2);
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('timeout');
    expect(silentConnections).toBe(3);
    expect(skips).toEqual([]);
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('timeout');
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('skipped');
  });

  it('does not count requests aborted because the scan was stopped', async () => {
    const { dispatch } = budgeted(1);
    const stop = new AbortController();
    const pending = dispatch(get('127.0.0.1', silentPort), { signal: stop.signal }).catch(
      (error: unknown) => error,
    );
    setTimeout(() => stop.abort(), 20);
    expect((await pending) as TransportError).toMatchObject({ kind: 'aborted' });
    expect(skips).toEqual([]);
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('timeout');
  });

  it('gives every host its whole budget again once told to forget, keeping the figures', async () => {
    const { dispatch, budget } = budgeted(1);
    await outcome(dispatch, get('127.0.0.1', silentPort));
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('skipped');
    budget.forget();
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('timeout');
    expect(await outcome(dispatch, get('127.0.0.1', silentPort))).toBe('skipped');
    expect(budget.figures).toEqual({ hosts: 2, requestsNotSent: 2 });
  });

  it('gives up at once on a name that does not resolve', async () => {
    const { dispatch } = budgeted(30);
    expect(await outcome(dispatch, get('keyhole-test.invalid', 80))).toBe('connect');
    expect(await outcome(dispatch, get('keyhole-test.invalid', 80))).toBe('skipped');
    expect(skips).toEqual([{ host: 'keyhole-test.invalid:80', errors: 1, cause: expect.any(String) }]);
  });

  it('does not count a refused connection twice when requests to the host fail together', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { dispatch } = budgeted(3);
    const together = await Promise.all(
      Array.from({ length: 6 }, () => outcome(dispatch, get('127.0.0.1', port))),
    );
    expect(together).toEqual(Array(6).fill('connect'));
    expect(skips).toEqual([
      { host: `127.0.0.1:${port}`, errors: 3, cause: expect.stringContaining('ECONNREFUSED') },
    ]);
    expect(await outcome(dispatch, get('127.0.0.1', port))).toBe('skipped');
  });
});
