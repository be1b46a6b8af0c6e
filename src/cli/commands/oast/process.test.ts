import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OastClient } from '../../../oast/index.js';

describe('keyhole oast serve, as a process', () => {
  it('serves callbacks and the API until SIGTERM, logs each interaction without its content, then stops', async () => {
    const main = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));
    const child = spawn(
      process.execPath,
      [main, 'oast', 'serve', '--domain', 'oast.test', '--listen', '127.0.0.1:0', '--no-dns'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let logs = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        logs += chunk.toString();
        const listening = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(logs);
        if (listening) resolve(listening[1]!);
      });
      child.on('exit', (code) => reject(new Error(`oast serve exited with ${code}: ${logs}`)));
    });
    const client = await OastClient.register({ server: url, domain: 'oast.test' });
    const name = client.newName();
    await new Promise<void>((resolve, reject) => {
      const port = Number(new URL(url).port);
      const req = request(
        { host: '127.0.0.1', port, path: '/?token=callback-body-secret', headers: { host: name.host } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(await client.poll()).toMatchObject([{ protocol: 'http', 'unique-id': name.uniqueId }]);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs).toContain(`"msg":"interaction","protocol":"http","unique-id":"${name.uniqueId}"`);
    expect(logs).not.toContain('callback-body-secret');
  });
});
