/**
 * `npm run bench -- scan`. Two measures:
 *
 * 1. Throughput: a scan of many targets × a template of 10 requests, with a secret applied to every
 *    request, against a node:http keep-alive server in a worker thread, as requests per second and
 *    as a ratio of autocannon's rate against the same server at the same connection count, measured
 *    in the same run (alternating, three rounds, median ratio). The bare HttpClient and the engine
 *    alone (template runs without the scan around them) are measured the same way, to show where the
 *    time goes.
 * 2. Memory: peak RSS of `keyhole scan` (the built CLI, in a child process) over 1,000 and 10,000
 *    targets × 10 templates, with the targets in a `-l` file.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type BenchSuite, compareRates, loopRate, type Report } from '../bench/report.js';
import { startWorkerServer } from '../bench/worker-server.js';
import { runTemplate } from '../engine/index.js';
import { serializeEvent } from '../event/index.js';
import { HttpClient, type HttpRequest } from '../http/index.js';
import { loadSecretFiles, SecretResolver } from '../secretfile/index.js';
import { chain, onTheWire, transportDispatch, withSecrets } from '../send/index.js';
import { type ParsedTemplate, parseTemplate } from '../template/index.js';
import { generateLibrary } from '../template/library.bench.js';
import { AuthLedger } from './auth-ledger.js';
import { runScan } from './run-scan.js';
import { ScanStats } from './stats.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = 3;
const concurrency = 25;
const PATHS = [
  '/admin',
  '/login',
  '/.env',
  '/.git/config',
  '/server-status',
  '/api/v1/users',
  '/wp-login.php',
  '/phpinfo.php',
  '/actuator/health',
  '/console',
];

/** Every path answers 200 with the same page (its path inside), as a single-page app does. */
const serverSource = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const page = '<html><title>Admin panel</title><span class="version">4.8.1</span>' + 'x'.repeat(1500);
const server = http.createServer((request, response) => {
  const body = page + '<p>' + request.url.replace(/^\\/t\\d+/, '') + '</p></html>';
  response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(body), Server: 'bench/1.0' });
  response.end(body);
});
server.keepAliveTimeout = 60000;
server.maxRequestsPerSocket = 0;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

const TEMPLATE = `
id: bench-exposures
info: {name: bench, author: keyhole, severity: medium}
http:
  - method: GET
    path:
${PATHS.map((p) => `      - "{{BaseURL}}${p}"`).join('\n')}
    matchers-condition: and
    matchers:
      - type: word
        words: ["<p>/admin</p>"]
      - type: status
        status: [200]
    extractors:
      - type: regex
        group: 1
        regex: ['class="version">([0-9.]+)']
`;

function parsed(text: string, file = 'bench.yaml'): ParsedTemplate {
  const result = parseTemplate(file, text);
  if (result.status !== 'ok') throw new Error(`bench template does not parse: ${result.status}`);
  return result.template;
}

function startServer(): Promise<{ port: number; stop: () => Promise<void> }> {
  return startWorkerServer(serverSource);
}

async function autocannonRate(port: number): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/t1/admin`,
    connections: concurrency,
    duration: seconds,
  });
  return result['2xx'] / result.duration;
}

function clientRate(client: HttpClient, port: number): Promise<number> {
  const request: HttpRequest = {
    method: 'GET',
    scheme: 'http',
    hostname: '127.0.0.1',
    port,
    target: '/t1/admin',
    headers: [
      ['Host', `127.0.0.1:${port}`],
      ['User-Agent', 'keyhole-bench'],
    ],
    body: '',
  };
  return loopRate(concurrency, seconds * 1000, async () => {
    await client.send(request);
    return 1;
  });
}

function engineRate(client: HttpClient, port: number, template: ParsedTemplate): Promise<number> {
  let target = 0;
  const dispatch = transportDispatch(client);
  return loopRate(concurrency, seconds * 1000, async () => {
    const run = await runTemplate(template, `http://127.0.0.1:${port}/t${target++}`, { dispatch });
    return run.requests;
  });
}

/** A whole scan (secrets, stats, redaction, JSONL of findings) over 100,000 targets, stopped after `seconds`. */
async function scanRate(
  client: HttpClient,
  port: number,
  template: ParsedTemplate,
  dir: string,
): Promise<number> {
  const resolver = await benchResolver(port, dir);
  const targets = Array.from({ length: 100_000 }, (_, i) => `http://127.0.0.1:${port}/t${i}`);
  const stats = new ScanStats(targets.length);
  const stop = new AbortController();
  let jsonl = 0;
  // The session's chain without resends (a scan's default) or a rate limit (-rl 0).
  const dispatch = chain(transportDispatch(client), [
    withSecrets(resolver, new AuthLedger(undefined)),
    onTheWire(() => stats.requests++),
  ]);
  const start = performance.now();
  const timer = setTimeout(() => stop.abort(), seconds * 1000);
  await runScan(
    { templates: [template], targets },
    {
      concurrency,
      run: { dispatch },
      stats,
      listener: {
        onEvent: (event) => {
          jsonl += serializeEvent(event).length;
        },
      },
      resolveTarget: async (target) => ({ ok: true, url: target }),
      redact: (text) => resolver.redactor.redact(text),
      signal: stop.signal,
    },
  );
  clearTimeout(timer);
  if (jsonl === 0) throw new Error('the bench scan found nothing');
  return stats.requests / ((performance.now() - start) / 1000);
}

async function benchResolver(port: number, dir: string): Promise<SecretResolver> {
  const file = join(dir, 'secrets.yaml');
  await writeFile(
    file,
    `static:\n  - type: header\n    domains: ["127.0.0.1:${port}"]\n    headers: [{key: X-Api-Key, value: bench-secret-value}]\n`,
    { mode: 0o600 },
  );
  const loaded = await loadSecretFiles([file], { cwd: dir, env: {} });
  if (loaded.secrets === undefined) throw new Error('bench secret file does not load');
  return new SecretResolver(loaded.secrets, { redactor: loaded.redactor });
}

async function throughput(report: Report, port: number, dir: string): Promise<void> {
  const client = new HttpClient({ connectionsPerOrigin: concurrency });
  const template = parsed(TEMPLATE);
  const rows: (string | number)[][] = [];
  try {
    await autocannonRate(port); // warm the server up
    await clientRate(client, port);
    for (const [name, ours] of [
      ['HttpClient.send alone (reference)', () => clientRate(client, port)],
      ['engine: template runs alone (reference)', () => engineRate(client, port, template)],
      [
        'keyhole scan: runs × targets, secret on every request, JSONL of findings',
        () => scanRate(client, port, template, dir),
      ],
    ] as const) {
      const result = await compareRates(rounds, () => autocannonRate(port), ours);
      rows.push([name, result.baseline, result.ours, result.ratio]);
    }
  } finally {
    await client.close();
  }
  report.table(['measure', 'autocannon req/s', 'req/s', 'ratio'], rows);
}

/** The templates of the library row: as many as nuclei-templates has http templates. */
const LIBRARY_SIZE = Number(process.env.BENCH_TEMPLATES ?? 10_000);

const rssChild = fileURLToPath(new URL('../bench/rss-child.js', import.meta.url));

/** Peak RSS (bytes) of `keyhole scan -l <targets> -t <10 templates>` in a child process, and its request count. */
async function scanRss(
  port: number,
  dir: string,
  targets: number,
  templates = join(dir, 'templates'),
): Promise<{ rss: number; seconds: number }> {
  const list = join(dir, `targets-${targets}.txt`);
  await writeFile(
    list,
    Array.from({ length: targets }, (_, i) => `http://127.0.0.1:${port}/t${i}\n`).join(''),
  );
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      rssChild,
      'scan',
      '-l',
      list,
      '-t',
      templates,
      '--no-store',
      '-rl',
      '0',
      '-silent',
      '-c',
      String(concurrency),
      // The library's out-of-band templates would need an interactsh server the machine reaches.
      ...(templates === join(dir, 'templates') ? [] : ['-ni']),
    ],
    // The caches of the library's templates are the bench's own, not the user's.
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') } },
  );
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const rss = /maxrss=(\d+)/.exec(err)?.[1];
  if (code !== 0 || rss === undefined) throw new Error(`keyhole scan exited ${code}: ${err}`);
  return { rss: Number(rss) * 1024, seconds: (performance.now() - started) / 1000 };
}

async function memory(report: Report, port: number, dir: string): Promise<void> {
  await rm(join(dir, 'templates'), { recursive: true, force: true });
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, 'templates'));
  for (let i = 0; i < 10; i++) {
    const path = PATHS[i] ?? '/';
    await writeFile(
      join(dir, 'templates', `t${i}.yaml`),
      `id: bench-${i}\ninfo: {name: bench ${i}, author: keyhole, severity: info}\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}${path}"]\n    matchers:\n      - type: word\n        words: ["<p>/admin</p>"]\n`,
    );
  }
  const rows: (string | number)[][] = [];
  for (const targets of [1000, 10_000]) {
    const { rss, seconds: took } = await scanRss(port, dir, targets);
    rows.push([
      `${targets.toLocaleString('en-US')} targets × 10 templates`,
      targets * 10,
      (targets * 10) / took,
      `${(rss / 1024 / 1024).toFixed(0)} MB`,
    ]);
  }
  const library = join(dir, 'library');
  await generateLibrary(library, LIBRARY_SIZE);
  // The first scan of the library compiles every template and remembers those that compiled;
  // the second finds them in that cache, as every scan of an unchanged library after the first.
  for (const caches of ['first scan, writing the template caches', 'again, from the template caches']) {
    const { rss, seconds: took } = await scanRss(port, dir, 1, library);
    rows.push([
      `1 target × ${LIBRARY_SIZE.toLocaleString('en-US')} templates (test/corpus copies), ${caches}`,
      '–',
      '',
      `${(rss / 1024 / 1024).toFixed(0)} MB (${took.toFixed(0)} s)`,
    ]);
  }
  report.table(['scan', 'requests', 'req/s (whole process)', 'peak RSS'], rows);
}

export const suite: BenchSuite = async (report: Report) => {
  report.heading('Scan');
  report.note(
    `Throughput: a template of ${PATHS.length} paths (word + status matchers, regex extractor; one path in ten ` +
      `matches) over 100,000 targets on one node:http keep-alive server in a worker thread, ${concurrency} template ` +
      `runs at once on ${concurrency} connections, a static header secret on every request, findings serialised ` +
      `as JSONL; stopped after ${seconds} s. Ratio: requests/s ÷ autocannon's requests/s against the same server ` +
      `with ${concurrency} connections; ${rounds} alternating rounds, median ratio.`,
  );
  const server = await startServer();
  const dir = await mkdtemp(join(tmpdir(), 'keyhole-scan-bench-'));
  try {
    // BENCH_SCAN=memory: the memory rows alone (the library rows take minutes of their own).
    if (process.env.BENCH_SCAN !== 'memory') await throughput(report, server.port, dir);
    report.note(
      'Memory: the built `keyhole scan -l FILE -t FOLDER --no-store -rl 0 -silent -c 25` in a child process ' +
        '(10 one-request templates), peak RSS as the process reports it at exit.',
    );
    await memory(report, server.port, dir);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
};
