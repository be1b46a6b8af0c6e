/** The built `keyhole scan` as a process: exit codes, piped JSONL, and Ctrl-C (a real SIGINT). */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore } from '../../../store/index.js';

const binary = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'dist/cli/main.js');

let host: TestHost;
let ws: Workspace;

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    if (request.path.endsWith('/never')) await new Promise(() => {});
    return request.path.endsWith('/found') ? { body: 'ok found' } : { status: 404 };
  });
  ws = new Workspace();
  ws.file('found.yaml', pathsTemplate('found', ['{{BaseURL}}/found']));
  ws.file('never.yaml', pathsTemplate('never', ['{{BaseURL}}/never']));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

interface Running {
  readonly child: ChildProcess;
  out: string;
  err: string;
  readonly exit: Promise<number | null>;
}

function keyhole(...argv: string[]): Running {
  const child = spawn(process.execPath, [binary, ...argv], {
    cwd: ws.dir,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const running: Running = {
    child,
    out: '',
    err: '',
    exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    running.out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    running.err += chunk.toString('utf8');
  });
  return running;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('keyhole scan as a process', () => {
  it('exits 0 and pipes JSONL on stdout', async () => {
    const scan = keyhole('scan', '-u', host.origin, '-t', 'found.yaml', '-j', '--no-store');
    expect(await scan.exit).toBe(0);
    expect(JSON.parse(scan.out)).toMatchObject({ 'template-id': 'found', 'matcher-status': true });
    expect(scan.err).toContain('scan finished in');
  });

  it('exits 1 on a configuration error, with a message and no stack trace', async () => {
    const scan = keyhole('scan', '-u', host.origin, '-t', 'nowhere.yaml', '--no-store');
    expect(await scan.exit).toBe(1);
    expect(scan.err).toContain(': no such file or folder');
    expect(scan.err).not.toMatch(/\n\s+at /);
  });

  it('on Ctrl-C, stops, keeps what was found, prints the summary, records the end state and exits 2', async () => {
    const scan = keyhole(
      'scan',
      '-u',
      host.origin,
      '-t',
      'found.yaml',
      '-t',
      'never.yaml',
      '-c',
      '1',
      '--db',
      'interrupted.db',
      '--name',
      'stopped',
    );
    await until(() => scan.out.includes('[found]') && host.requests.some((r) => r.path === '/never'));
    scan.child.kill('SIGINT');
    expect(await scan.exit).toBe(2);
    expect(scan.out).toBe(`[found] [http] [info] ${host.origin}/found\n`);
    expect(scan.err).toContain('[WRN] stopping: requests in flight are aborted');
    expect(scan.err).toMatch(/scan interrupted after \S+: 1 of 2 template runs done\n/);
    expect(scan.err).toMatch(/recorded +scan [a-z0-9]{20} in SQLite /);
    const store = await openStore({ engine: 'sqlite', path: ws.path('interrupted.db'), isDefault: false });
    const team = await store.teams.ensure('default');
    const [recorded] = await store.scans.list(team.id, { offset: 0, limit: 1, search: 'stopped' });
    await store.close();
    expect(recorded).toMatchObject({
      status: 'failed',
      failureReason: 'interrupted: the scan was stopped before it finished',
    });
  });

  it('on SIGTERM, stops as cleanly as on Ctrl-C', async () => {
    const before = host.requests.length;
    const scan = keyhole('scan', '-u', host.origin, '-t', 'never.yaml', '--db', 'terminated.db');
    await until(() => host.requests.slice(before).some((r) => r.path === '/never'));
    scan.child.kill('SIGTERM');
    expect(await scan.exit).toBe(2);
    expect(scan.err).toContain('[WRN] stopping: requests in flight are aborted');
    expect(scan.err).toMatch(/scan interrupted after \S+: 0 of 1 template runs done\n/);
  });
});

describe('keyhole scan on a templates library, as a process', () => {
  const library = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'test/library');

  it('lists what the filters select from $KEYHOLE_TEMPLATES with -tl and exits 0', async () => {
    const child = spawn(process.execPath, [binary, 'scan', '-tags', 'cve', '-s', 'critical', '-tl'], {
      cwd: ws.dir,
      env: { ...process.env, NO_COLOR: '1', KEYHOLE_TEMPLATES: library },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(out).toBe(
      'ID             SEVERITY  PATH\nCVE-2024-0001  critical  http/cves/2024/CVE-2024-0001.yaml\n',
    );
  });

  it('exits 1 before any request when a selection takes no template', async () => {
    const running = keyhole('scan', '--templates-dir', library, '-u', host.origin, '-id', 'nothing-*');
    expect(await running.exit).toBe(1);
    expect(running.err).toMatch(/^error: no template matches the filters .*check the values of -id$/m);
  });
});
