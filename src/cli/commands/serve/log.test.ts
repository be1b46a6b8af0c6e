/**
 * What `keyhole serve` writes to its log, read from the real process (the built CLI in dist/).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendOnSocket } from '../../../api/testing/serve.js';
import { postgresTestDatabase } from '../../../store/testing/databases.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const MAIN = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));

interface RunningServe {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM) and returns everything it logged. */
  stop(): Promise<string>;
}

let dir: string;
let child: ChildProcessWithoutNullStreams | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyhole-serve-log-'));
});
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function keyhole(...argv: string[]): Promise<string> {
  const io = memoryIo({ cwd: dir });
  const code = await run(argv, io);
  if (code !== 0) throw new Error(`keyhole ${argv.join(' ')} exited ${code}: ${io.err()}`);
  return io.out();
}

async function startServe(...argv: string[]): Promise<RunningServe> {
  const started = spawn(process.execPath, [MAIN, 'serve', '--port', '0', ...argv], { cwd: dir });
  child = started;
  let logs = '';
  started.stderr.on('data', (chunk: Buffer) => {
    logs += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    started.stdout.on('data', (chunk: Buffer) => {
      logs += chunk.toString();
      const listening = /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(logs);
      if (listening) resolve(listening[1]!);
    });
    started.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${logs}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    async stop() {
      const exited = new Promise<number | null>((resolve) => started.on('exit', resolve));
      started.kill('SIGTERM');
      expect(await exited).toBe(0);
      return logs;
    },
  };
}

describe('keyhole serve', () => {
  it('never logs an API key sent in the query, the path or a header, at debug level', async () => {
    const key = (await keyhole('keys', 'create', '--name', 'ops')).trim();
    const serve = await startServe('--log-level', 'debug');
    for (const path of [
      `/v1/scans?api_key=${key}`,
      `/v1/scans?limit=5&X-API-Key=${key}`,
      `/v1/scans?${key}`,
      `/v1/scans?search=${key}`,
      `/v1/scans/${key}`,
      `/v1/scans/${key.replace('_', '%5F')}`,
    ]) {
      expect((await fetch(serve.url + path)).status).toBeGreaterThanOrEqual(400);
    }
    const withHeaders = await fetch(`${serve.url}/v1/scans`, {
      headers: { authorization: `Bearer ${key}`, 'x-api-key': key, cookie: `session=${key}` },
    });
    expect(withHeaders.status).toBe(200);
    const malformed = await sendOnSocket(
      serve.port,
      `GET /v1/scans?api_key=${key} HTTP/1.1\r\nHost: a\r\nX-API-Key: ${key}\r\nnot a header\r\n\r\n`,
    );
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);

    const logs = await serve.stop();
    expect(logs).not.toContain(key.slice(3, 20));
    // What is not a credential is still logged.
    expect(logs).toContain('"url":"/v1/scans?limit=5&[REDACTED]"');
    expect(logs).toContain('"url":"/v1/scans/kh_[REDACTED]"');
    expect(logs).toContain('"msg":"client error"');
    for (const line of logs.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('never logs the password of its PostgreSQL store', async () => {
    const database = await postgresTestDatabase();
    try {
      if (database.location.engine !== 'postgres') throw new Error('not PostgreSQL');
      const url = `${database.location.url}?password=hunter2&sslpassword=sesame7`;
      await keyhole('db', 'migrate', '--db', url);
      const serve = await startServe('--db', url);
      expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
      const logs = await serve.stop();
      expect(logs).toContain('"store":"PostgreSQL postgres://');
      expect(logs).toContain('password=***&sslpassword=***');
      expect(logs).not.toMatch(/hunter2|sesame7/);
    } finally {
      await database.drop();
    }
  });
});
