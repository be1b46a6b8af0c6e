/**
 * `keyhole scan -resume SCAN_ID`: a scan stopped with Ctrl-C (a real SIGINT to the built binary)
 * goes on in the same stored scan; the runs it finished are not made again and no finding is
 * recorded twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { openStore, type Store } from '../../../store/index.js';

const binary = join(fileURLToPath(new URL('../../../../', import.meta.url)), 'dist/cli/main.js');

let host: TestHost;
let ws: Workspace;
/** While true, `/hang` never answers: the scan is stopped there. */
let hanging = true;

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    if (request.path === '/hang' && hanging) await new Promise(() => {});
    return { body: 'ok' };
  });
  ws = new Workspace();
  ws.file('first.yaml', pathsTemplate('first', ['{{BaseURL}}/first']));
  ws.file('second.yaml', pathsTemplate('second', ['{{BaseURL}}/second']));
  ws.file('hang.yaml', pathsTemplate('hang', ['{{BaseURL}}/hang']));
  ws.file('last.yaml', pathsTemplate('last', ['{{BaseURL}}/last']));
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

interface Running {
  readonly child: ChildProcess;
  err: string;
  readonly exit: Promise<number | null>;
}

function keyhole(...argv: string[]): Running {
  const child = spawn(process.execPath, [binary, ...argv], {
    cwd: ws.dir,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const running: Running = { child, err: '', exit: new Promise((resolve) => child.on('exit', resolve)) };
  child.stderr?.on('data', (chunk: Buffer) => {
    running.err += chunk.toString('utf8');
  });
  return running;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

function requestsTo(path: string): number {
  return host.requests.filter((r) => r.path === path).length;
}

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ engine: 'sqlite', path: ws.path('resume.db'), isDefault: false });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

describe('scan -resume', () => {
  it('goes on with a scan stopped by Ctrl-C, without making its finished runs again', async () => {
    const templates = ['first', 'second', 'hang', 'last'].flatMap((t) => ['-t', `${t}.yaml`]);
    const scan = keyhole('scan', '-u', host.origin, ...templates, '-c', '1', '--db', 'resume.db');
    await until(() => requestsTo('/hang') === 1);
    scan.child.kill('SIGINT');
    expect(await scan.exit).toBe(2);
    const scanId = /recorded +scan ([a-z0-9]{20}) in SQLite/.exec(scan.err)?.[1] ?? '';
    expect(scan.err).toContain(`to go on where it stopped: keyhole scan -resume ${scanId} --db resume.db\n`);
    expect(requestsTo('/first') + requestsTo('/second')).toBe(2);

    hanging = false;
    const resumed = await ws.cli(['scan', '-resume', scanId, '--db', 'resume.db']);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toContain(`resuming scan ${scanId}: 2 template runs done before are not made again`);
    expect(resumed.out.split('\n').filter(Boolean).sort()).toEqual([
      `[hang] [http] [info] ${host.origin}/hang`,
      `[last] [http] [info] ${host.origin}/last`,
    ]);
    expect([requestsTo('/first'), requestsTo('/second'), requestsTo('/hang'), requestsTo('/last')]).toEqual([
      1, 1, 2, 1,
    ]);
    const { scan: stored, findings } = await withStore(async (store) => {
      const found: string[] = [];
      for await (const f of store.findings.allOfScan(scanId)) found.push(f.templateId);
      return { scan: await store.scans.require(scanId), findings: found.sort() };
    });
    expect(findings).toEqual(['first', 'hang', 'last', 'second']);
    expect(stored).toMatchObject({ status: 'finished', progress: 100, failureReason: '' });

    // Finished now: there is nothing to go on with.
    const again = await ws.cli(['scan', '-resume', scanId, '--db', 'resume.db']);
    expect(again.code).toBe(1);
    expect(again.err).toContain(
      `-resume ${scanId}: the scan finished; run it again as a new scan with --rescan`,
    );
  });

  it('refuses what would change the stored scan, and an unknown id', async () => {
    const mixed = await ws.cli([
      'scan',
      '-resume',
      'cn5r7t3kd0ssm6bh1f2g',
      '-t',
      'first.yaml',
      '--db',
      'resume.db',
    ]);
    expect(mixed.code).toBe(1);
    expect(mixed.err).toContain(
      '-resume goes on with the stored scan, its targets and templates, in the store; leave out -t',
    );
    const unknown = await ws.cli(['scan', '-resume', 'cn5r7t3kd0ssm6bh1f2g', '--db', 'resume.db']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('-resume cn5r7t3kd0ssm6bh1f2g: no scan has that id');
  });
});
