import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchSuite, Report } from '../bench/report.js';
import { importJsonl } from '../importer/index.js';
import { openStore } from '../store/index.js';
import { type ScratchDatabase, scratchPostgres, scratchSqlite } from '../store/testing/scratch.js';
import { type SeedSize, seed } from './bench/seed.js';
import { type Load, load as loadUrl, startServer } from './bench/serve.js';

const SIZE: SeedSize = {
  scans: Number(process.env.KEYHOLE_BENCH_SCANS ?? 100_000),
  findings: Number(process.env.KEYHOLE_BENCH_FINDINGS ?? 1_000_000),
  retests: Number(process.env.KEYHOLE_BENCH_RETESTS ?? 1_000_000),
};
const SECONDS = Number(process.env.KEYHOLE_BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const IMPORT_EVENTS = 100_000;

async function load(url: string, headers: Record<string, string> = {}): Promise<Load> {
  return loadUrl(url, { connections: CONNECTIONS, seconds: SECONDS, headers });
}

/** What Go's net/http, python requests, browsers and `curl --compressed` send unasked. */
const GZIP = { 'accept-encoding': 'gzip' };

async function engine(
  report: Report,
  name: string,
  create: () => Promise<ScratchDatabase>,
  bare: Load,
): Promise<void> {
  const database = await create();
  try {
    const store = await openStore(database.location);
    const team = await store.teams.ensure('bench');
    const key = (await store.keys.create({ teamId: team.id, name: 'bench' })).secret;
    const seeded = await seed(store, team.id, SIZE);
    const importRate = await measureImport(store, team.id);
    await store.close();

    const deepScans = Math.max(0, SIZE.scans - 100);
    const deepRetests = Math.min(900_000, Math.max(0, SIZE.retests - 100));
    const scenarios: [string, string][] = [
      ['/v1/scans offset 0', '/v1/scans?offset=0&limit=100'],
      [
        `/v1/scans offset ${deepScans.toLocaleString('en-US')} (last page)`,
        `/v1/scans?offset=${deepScans}&limit=100`,
      ],
      ['/v1/retest offset 0', '/v1/retest?offset=0&limit=100'],
      [
        `/v1/retest offset ${deepRetests.toLocaleString('en-US')}`,
        `/v1/retest?offset=${deepRetests}&limit=100`,
      ],
    ];
    const rows: (string | number)[][] = [];
    for (const cache of [true, false]) {
      const server = await startServer({ kind: 'api', location: database.location, cache });
      try {
        for (const [label, path] of scenarios) {
          // Pages are compressed once per cached page, so gzip is measured with the cache only.
          for (const gzip of cache ? [false, true] : [false]) {
            const result = await load(server.url + path, { 'x-api-key': key, ...(gzip ? GZIP : {}) });
            rows.push([
              label,
              cache ? 'on' : 'off',
              gzip ? 'gzip' : 'identity',
              result.rate,
              (result.rate / bare.rate).toFixed(2),
              result.p50,
              result.p99,
              (result.bytes / 1024).toFixed(1),
              result.failures,
            ]);
          }
        }
      } finally {
        await server.stop();
      }
    }
    report.note(
      `**${name}**: seeded ${SIZE.scans.toLocaleString('en-US')} scans, ${SIZE.findings.toLocaleString('en-US')} findings and ${SIZE.retests.toLocaleString('en-US')} retest results (${seeded.rows.toLocaleString('en-US')} rows) in ${seeded.seconds.toFixed(1)} s (${Math.round(seeded.rows / seeded.seconds).toLocaleString('en-US')} rows/s); import of nuclei JSONL: ${Math.round(importRate.rate).toLocaleString('en-US')} events/s (${IMPORT_EVENTS.toLocaleString('en-US')} events, heap grew ${importRate.heapGrowthMb.toFixed(0)} MB).`,
    );
    report.table(
      [
        'page of 100',
        'page cache',
        'encoding',
        'requests/s',
        'ratio to bare',
        'p50 ms',
        'p99 ms',
        'KB per response',
        'errors',
      ],
      rows,
    );
  } finally {
    await database.drop();
  }
}

/** Events/s of `keyhole import` for a realistic nuclei JSONL file, and how much the heap grew. */
async function measureImport(store: Awaited<ReturnType<typeof openStore>>, teamId: string) {
  const dir = await mkdtemp(join(tmpdir(), 'keyhole-bench-'));
  try {
    const file = join(dir, 'results.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < IMPORT_EVENTS; i++) {
      const host = `host${i % 2000}.example.test`;
      lines.push(
        JSON.stringify({
          template: 'http/exposures/configs/git-config.yaml',
          'template-url': 'https://cloud.projectdiscovery.io/public/git-config',
          'template-id': `template-${i % 300}`,
          'template-path': `/home/runner/nuclei-templates/http/template-${i % 300}.yaml`,
          info: {
            name: 'Git Configuration - Detect',
            author: ['pdteam'],
            tags: ['config', 'git'],
            severity: ['info', 'low', 'medium', 'high', 'critical'][i % 5],
            metadata: { 'max-request': 1 },
            classification: { 'cve-id': null, 'cwe-id': ['cwe-200'] },
          },
          type: 'http',
          host,
          port: '443',
          scheme: 'https',
          url: `https://${host}`,
          'matched-at': `https://${host}/${i}/.git/config`,
          request: `GET /${i}/.git/config HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: Mozilla/5.0\r\nAccept-Encoding: gzip\r\n\r\n`,
          response:
            'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n',
          ip: '10.20.0.15',
          timestamp: '2024-03-14T10:21:36.884120935-04:00',
          'curl-command': `curl -X 'GET' 'https://${host}/${i}/.git/config'`,
          'matcher-status': true,
        }),
      );
    }
    await writeFile(file, `${lines.join('\n')}\n`);
    lines.length = 0;
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const started = process.hrtime.bigint();
    await importJsonl(store, createReadStream(file), { teamId, name: 'import bench' }, () => {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { rate: IMPORT_EVENTS / seconds, heapGrowthMb: (heapPeak - heapBefore) / 1e6 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = async (report) => {
  report.heading('Store and API');
  report.note(
    `Each engine is filled, then served by \`keyhole serve\`'s API in a child process and loaded by autocannon with ${CONNECTIONS} connections for ${SECONDS} s per row (after a 1 s warm-up), once without \`Accept-Encoding\` (identity) and, with the page cache, once with \`Accept-Encoding: gzip\` (what typical clients send). The ratio divides by the rate of a bare Fastify route returning a constant, measured the same way in the same run. Goals: offset 0 ≥ 0.25 of the bare rate with p99 < 20 ms; deep offsets p99 < 200 ms; import ≥ 20,000 events/s on SQLite.`,
  );
  const bareServer = await startServer({ kind: 'bare' });
  const bare = await load(`${bareServer.url}/bare`);
  await bareServer.stop();
  report.note(
    `Bare Fastify baseline: ${Math.round(bare.rate).toLocaleString('en-US')} requests/s, p50 ${bare.p50} ms, p99 ${bare.p99} ms.`,
  );
  await engine(report, 'SQLite', scratchSqlite, bare);
  await engine(report, 'PostgreSQL', scratchPostgres, bare);
};
