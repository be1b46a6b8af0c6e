import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../store/index.js';
import { postgresTestDatabase, type TestDatabase } from '../../../store/testing/databases.js';
import { TcpProxy } from '../../../store/testing/proxy.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

describe('an import whose store goes away half way', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let dir: string;

  beforeAll(async () => {
    database = await postgresTestDatabase();
    if (database.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
    const server = new URL(database.location.url);
    proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
    dir = await mkdtemp(join(tmpdir(), 'keyhole-cut-import-'));
  });
  afterAll(async () => {
    await proxy?.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 2 saying where it stopped, and leaves a scan that never shows as uploaded', async () => {
    const file = join(dir, 'nightly.jsonl');
    const lines = Array.from({ length: 30_000 }, (_, i) =>
      JSON.stringify({
        'template-id': 'cut',
        info: { name: 'cut', severity: 'low' },
        type: 'http',
        host: 'h.test',
        'matched-at': `https://h.test/${i}`,
      }),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    if (database.location.engine !== 'postgres') throw new Error('expected PostgreSQL');
    const proxied = new URL(database.location.url);
    proxied.host = `127.0.0.1:${proxy.port}`;

    const store = await openStore(database.location);
    try {
      const io = memoryIo({ cwd: dir });
      const importing = run(['import', 'nightly.jsonl', '--db', proxied.toString()], io);
      const team = await store.teams.ensure('default');
      // Cut the store off as soon as the first batch is in: the rest of the file is still to come.
      for (;;) {
        const [scan] = await store.scans.list(team.id, { offset: 0, limit: 1 });
        if (scan !== undefined && scan.severity.low > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      proxy.cutOff();
      expect(await importing).toBe(2);
      const stopped =
        /^error: nightly\.jsonl:(\d+): the import stopped: the store \(PostgreSQL .+\) became unreachable: .+; scan ([0-9a-v]{20}) holds the findings read before and could not be marked failed, so it stays starting \(never uploaded\): import the file again\n$/.exec(
          io.err(),
        );
      expect(stopped, io.err()).not.toBeNull();
      expect(Number(stopped![1])).toBeLessThan(lines.length);
      expect(await store.scans.require(stopped![2]!)).toMatchObject({
        name: 'nightly.jsonl',
        status: 'starting',
      });
    } finally {
      await store.close();
    }
  });
});
