/**
 * `keyhole serve --processes N`, the built command run as a user runs it, on a real PostgreSQL:
 * every request goes out on a connection of its own, so Node's cluster hands each to any process.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenField } from '../../../dashboard/testing/serve.js';
import { postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';
import { until } from './testing/background.js';

const MAIN = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request on a new connection (no keep-alive), so that any serving process may take it. */
function fresh(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<Answer>((resolve, reject) => {
    const sent = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

/** `keyhole serve --processes …` in a child process, its logs as JSON lines. */
class Serving {
  logs = '';
  errors = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;

  constructor(args: readonly string[], cwd: string) {
    this.child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.logs += chunk.toString();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.errors += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** The URL it logs once every process listens. */
  url(): Promise<string> {
    return until(async () => {
      const listening = this.lines().find((line) => line.msg === 'listening');
      return typeof listening?.url === 'string' ? listening.url : undefined;
    });
  }

  lines(): Record<string, unknown>[] {
    return this.logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The processes that served requests, by the pid on their request logs. */
  answeredBy(): Set<unknown> {
    return new Set(
      this.lines()
        .filter((line) => line.msg === 'request completed')
        .map((line) => line.pid),
    );
  }

  /** The serving processes (not the first): those that logged Fastify's own listening line. */
  servingPids(): number[] {
    return this.lines()
      .filter((line) => String(line.msg).startsWith('Server listening at'))
      .map((line) => Number(line.pid));
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

function alivePid(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('keyhole serve --processes', () => {
  let dir: string;
  let database: TestDatabase;
  let db: string;
  let key: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'keyhole-serve-processes-'));
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('a PostgreSQL store is needed');
    db = database.location.url;
    const io = memoryIo({ cwd: dir });
    expect(await run(['db', 'migrate', '--db', db], io)).toBe(0);
    const keys = memoryIo({ cwd: dir });
    expect(await run(['keys', 'create', '--db', db, '--name', 'ops'], keys)).toBe(0);
    key = keys.out().trim();
  });

  afterAll(async () => {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers from every process on one port, and a key’s rate limit holds across them', async () => {
    const serving = new Serving(['--db', db, '--processes', '2', '--rate-limit', '8'], dir);
    try {
      const url = await serving.url();
      const ask = async () => (await fresh(`${url}/v1/scans`, { headers: { 'x-api-key': key } })).status;
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push(await ask());
      // A process may be refused while the other still holds part of the limit, for a moment.
      expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(8);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(7);
      await sleep(300);
      for (let i = 0; i < 6; i++) statuses.push(await ask());
      expect(statuses.filter((status) => status === 200)).toHaveLength(8);
      expect(statuses.filter((status) => status === 429)).toHaveLength(10);
      expect(serving.answeredBy().size).toBe(2);
      expect(serving.servingPids()).toHaveLength(2);
      expect(await serving.stop()).toBe(0);
      expect(serving.lines().filter((line) => line.msg === 'stopped')).toHaveLength(1);
      for (const pid of serving.servingPids()) expect(alivePid(pid)).toBe(false);
      expect(serving.logs).not.toContain(key);
    } finally {
      await serving.stop();
    }
  });

  it('keeps a dashboard session signed in whichever process answers', async () => {
    const serving = new Serving(['--db', db, '--processes', '2'], dir);
    try {
      const url = await serving.url();
      const form = await fresh(`${url}/sign-in`);
      const signInCookie = cookiesOf(form);
      const signedIn = await fresh(`${url}/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: signInCookie },
        body: new URLSearchParams({ csrf: hiddenField(form.body, 'csrf'), key }).toString(),
      });
      expect(signedIn.status).toBe(303);
      const session = cookiesOf(signedIn);
      expect(session).toMatch(/^keyhole_session=./);
      const pages: number[] = [];
      for (let i = 0; i < 8; i++)
        pages.push((await fresh(`${url}/scans`, { headers: { cookie: session } })).status);
      expect(pages).toEqual(Array(8).fill(200));
      expect(serving.answeredBy().size).toBe(2);
    } finally {
      expect(await serving.stop()).toBe(0);
    }
  });

  it('starts another process when one ends, and keeps answering', async () => {
    const serving = new Serving(['--db', db, '--processes', '2'], dir);
    try {
      const url = await serving.url();
      const [ended] = serving.servingPids();
      process.kill(ended ?? 0, 'SIGKILL');
      await until(async () => (serving.servingPids().length === 3 ? true : undefined));
      const restarted = serving
        .lines()
        .find((line) => line.msg === 'a serving process ended unexpectedly; starting another');
      expect(restarted).toMatchObject({ level: 50, process: ended, reason: 'signal SIGKILL' });
      for (let i = 0; i < 6; i++)
        expect((await fresh(`${url}/v1/scans`, { headers: { 'x-api-key': key } })).status).toBe(200);
    } finally {
      expect(await serving.stop()).toBe(0);
    }
    for (const pid of serving.servingPids()) expect(alivePid(pid)).toBe(false);
  });

  it('stops with exit code 2 when its processes keep ending', async () => {
    const serving = new Serving(['--db', db, '--processes', '2'], dir);
    try {
      await serving.url();
      for (let ended = 1; ended <= 6; ended++) {
        const alive = serving.servingPids().filter(alivePid);
        process.kill(alive[0] ?? 0, 'SIGKILL');
        if (ended < 6)
          await until(async () => (serving.servingPids().length === 2 + ended ? true : undefined));
      }
      expect(await serving.exited).toBe(2);
      expect(serving.errors).toBe(
        'error: serving processes ended 6 times within a minute (the last: signal SIGKILL); the server stopped\n',
      );
      expect(
        serving.lines().filter((line) => line.msg === 'serving processes keep ending; stopping the server'),
      ).toHaveLength(1);
      for (const pid of serving.servingPids()) expect(alivePid(pid)).toBe(false);
    } finally {
      await serving.stop();
    }
  }, 90_000);

  it('reports a port in use once, before it serves, with exit code 1', async () => {
    const first = new Serving(['--db', db, '--processes', '2'], dir);
    try {
      const port = new URL(await first.url()).port;
      const second = spawn(
        process.execPath,
        [MAIN, 'serve', '--db', db, '--processes', '2', '--port', port],
        {
          cwd: dir,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let errors = '';
      second.stderr.on('data', (chunk: Buffer) => {
        errors += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
      expect(code).toBe(1);
      expect(errors).toBe(`error: port ${port} on 127.0.0.1 is in use; choose another with --port\n`);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  it('refuses more than one process on SQLite before reading anything', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await run(['serve', '--processes', '2', '--secrets', 'missing.yaml'], io)).toBe(1);
    expect(io.err()).toContain('--processes 2 needs a PostgreSQL store (SQLite ');
    expect(io.err()).not.toContain('missing.yaml');
  });
});

/** The `name=value` pairs a response sets, as a Cookie header sends them back. */
function cookiesOf(answer: Answer): string {
  const set = answer.headers['set-cookie'] ?? [];
  return (Array.isArray(set) ? set : [set])
    .map((line) => line.split(';')[0] ?? '')
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
}
