/**
 * `npm run demo` end to end, through the built CLI: examples/demo.mjs on free ports (so that it can
 * run beside anything else) with the store in a scratch SQLite file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEAM, type Finding, openStore, resolveLocation } from '../store/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'keyhole-demo-script-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The demo's secret values: none may reach the console or the store. */
const SECRETS = [
  'wonderland',
  'demo-inventory-token-7f3c9a',
  'demo-admin-password',
  'ZGVtby1hZG1pbi1wYXNzd29yZA', // base64 of the basic-auth password, as in an Authorization header
  'demo-billing-key-2b8e41',
  'demo-reports-token-5d21',
];

function runDemo(args: readonly string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['examples/demo.mjs', ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo', () => {
  it('finds the five weaknesses with the secret file, none without it, and stores the first scan as "demo"', async () => {
    const db = join(scratch, 'keyhole.db');
    const { code, stdout, stderr } = await runDemo(['--base-port', '0'], { KEYHOLE_DB: db });
    expect(code, `${stdout}\n${stderr}`).toBe(0);

    const findings = [
      ...stdout.matchAll(/^\[([\w-]+)(?::[\w-]+)?\] \[http\] \[(\w+)\] http:\/\/127\.0\.0\.1:\d+(\/\S*)/gm),
    ];
    expect(
      findings.map(([, id, severity, path]) => `${id} ${severity} ${path?.replace(/=\w+$/, '=…')}`).sort(),
    ).toEqual([
      'acme-admin-dotenv critical /.env',
      'acme-billing-log4j-version critical /actuator/info',
      'acme-inventory-debug-env high /api/debug/env',
      'acme-notes-user-idor medium /api/users/1001',
      'acme-reports-stack-trace low /reports/export?format=…',
    ]);
    expect(stdout).toContain('✔ all 5 planted weaknesses found, one in each area');
    expect(stdout).toContain('✔ none of them found: they only exist behind the logins');
    expect(SECRETS.filter((secret) => `${stdout}${stderr}`.includes(secret))).toEqual([]);

    const store = await openStore(resolveLocation(db, {}, root));
    try {
      const team = await store.teams.byName(DEFAULT_TEAM);
      const scans = await store.scans.list(team?.id ?? '', { offset: 0, limit: 10 });
      expect(scans.map((s) => [s.name, s.status, s.totalTarget, s.totalTemplate])).toEqual([
        ['demo', 'finished', 5, 5],
      ]);
      expect(scans[0]?.severity).toMatchObject({ critical: 2, high: 1, medium: 1, low: 1, info: 0 });
      const stored: Finding[] = [];
      for await (const finding of store.findings.allOfScan(scans[0]?.id ?? '')) stored.push(finding);
      expect(stored).toHaveLength(5);
      expect(SECRETS.filter((secret) => JSON.stringify(stored).includes(secret))).toEqual([]);
      // It ends with the dashboard's address and a key of the demo scan's team to sign in with.
      expect(stdout).toContain('http://127.0.0.1:8080/');
      const key = /API key: (kh_\S+)/.exec(stdout)?.[1] ?? '';
      expect(await store.keys.authenticate(key)).toMatchObject({ teamId: team?.id });
    } finally {
      await store.close();
    }
    // Four keyhole processes one after another: on a busy machine that takes more than the default 30 s.
  }, 120_000);

  it('refuses a base port it cannot use, with its usage', async () => {
    const { code, stderr } = await runDemo(['--base-port', 'seven'], {});
    expect(code).toBe(1);
    expect(stderr).toContain('--base-port must be 0 (any free ports) or a port number up to 65530');
    expect(stderr).toContain('usage: node examples/demo.mjs [--base-port N]');
  });
});
