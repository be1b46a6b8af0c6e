import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTestCertificate } from '../../../api/testing/tls.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

describe('keyhole serve', () => {
  it('serves the API until SIGTERM, then stops cleanly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keyhole-serve-'));
    try {
      const io = memoryIo({ cwd: dir });
      await run(['keys', 'create', '--name', 'ops'], io);
      const key = io.out().trim();
      const main = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));
      const child = spawn(process.execPath, [main, 'serve', '--port', '0'], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let logs = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
          const listening = /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(logs);
          if (listening) resolve(listening[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${logs}`)));
      });
      const response = await fetch(`${url}/v1/scans`, { headers: { 'x-api-key': key } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ message: expect.any(String), data: [] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(logs).toContain('"msg":"stopped"');
      expect(logs).not.toContain(key);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves HTTPS with --tls-cert and --tls-key and logs an https URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'keyhole-serve-tls-'));
    try {
      const { cert, key: privateKey } = makeTestCertificate();
      await writeFile(join(dir, 'server.crt'), cert);
      await writeFile(join(dir, 'server.key'), privateKey);
      const io = memoryIo({ cwd: dir });
      await run(['keys', 'create', '--name', 'pdtm'], io);
      const key = io.out().trim();
      const main = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));
      const child = spawn(
        process.execPath,
        [main, 'serve', '--port', '0', '--tls-cert', 'server.crt', '--tls-key', 'server.key'],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let logs = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          logs += chunk.toString();
          const listening = /"url":"(https:\/\/[^"]+)".*"msg":"listening"/.exec(logs);
          if (listening) resolve(listening[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${logs}`)));
      });
      const status = await new Promise<number>((resolve, reject) => {
        get(`${url}/v1/user`, { ca: cert, headers: { 'x-api-key': key } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        }).on('error', reject);
      });
      expect(status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(logs).not.toContain(key);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
