/**
 * Part of `npm run bench -- dsl`: a scan with the test corpus's regex-heavy templates against one
 * node:http keep-alive server in a worker thread answering every path with a 100 KB page, as
 * requests per second and as a ratio of autocannon's rate against the same server at the same
 * connection count, measured in the same run (alternating rounds, median ratio).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { compareRates, type Report } from '../bench/report.js';
import { startWorkerServer } from '../bench/worker-server.js';
import { HttpClient } from '../http/index.js';
import { chain, onTheWire, transportDispatch } from '../send/index.js';
import { loadTemplate, type ParsedTemplate } from '../template/index.js';
import { runScan } from './run-scan.js';
import { ScanStats } from './stats.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = 3;
const concurrency = 25;

const CORPUS = fileURLToPath(new URL('../../test/corpus/', import.meta.url));
/** The corpus templates whose matchers and extractors are mostly regexes. */
export const REGEX_TEMPLATES = [
  'http/technologies/wordpress/plugins/akismet.yaml',
  'http/exposures/configs/aws-credentials.yaml',
  'http/technologies/apache/apache-detect.yaml',
  'http/technologies/angular-detect.yaml',
  'http/technologies/apache/tomcat-detect.yaml',
  'http/vulnerabilities/generic/generic-linux-lfi.yaml',
];

/** A WordPress-like page of about 100 KB, served for every path, with a few strings templates look for. */
const serverSource = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const rows = [];
for (let i = 0; rows.join('').length < 100 * 1024; i++) {
  rows.push('<div class="post post-' + i + '"><a href="/2024/01/' + i + '/entry-' + i + '/">Entry ' + i + '</a>\\n' +
    '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor ' + i + '.</p></div>\\n');
}
const page = Buffer.from('<!DOCTYPE html>\\n<html lang="en-US">\\n<head><title>Blog</title></head><body>\\n' + rows.join('') +
  '<footer>Proudly powered by WordPress 5.8.1</footer>\\n</body></html>\\n');
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8', 'Content-Length': page.length, Server: 'Apache/2.4.58 (Debian)' });
  response.end(page);
});
server.keepAliveTimeout = 60000;
server.maxRequestsPerSocket = 0;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

async function corpusTemplates(): Promise<ParsedTemplate[]> {
  const templates: ParsedTemplate[] = [];
  for (const file of REGEX_TEMPLATES) {
    const result = await loadTemplate(join(CORPUS, file), { root: CORPUS });
    if (result.status !== 'ok') throw new Error(`${file} does not load: ${result.status}`);
    templates.push(result.template);
  }
  return templates;
}

function startServer(): Promise<{ port: number; stop: () => Promise<void> }> {
  return startWorkerServer(serverSource);
}

async function autocannonRate(port: number): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/`,
    connections: concurrency,
    duration: seconds,
  });
  return result['2xx'] / result.duration;
}

/** Requests per second of a scan of the templates over many targets, stopped after `seconds`. */
async function scanRate(client: HttpClient, port: number, templates: ParsedTemplate[]): Promise<number> {
  const targets = Array.from({ length: 100_000 }, (_, i) => `http://127.0.0.1:${port}/t${i}`);
  const stats = new ScanStats(targets.length);
  const stop = new AbortController();
  let findings = 0;
  const start = performance.now();
  const timer = setTimeout(() => stop.abort(), seconds * 1000);
  await runScan(
    { templates, targets },
    {
      concurrency,
      run: { dispatch: chain(transportDispatch(client), [onTheWire(() => stats.requests++)]) },
      stats,
      listener: { onEvent: () => findings++ },
      resolveTarget: async (target) => ({ ok: true, url: target }),
      redact: (text) => text,
      signal: stop.signal,
    },
  );
  clearTimeout(timer);
  if (findings === 0) throw new Error('the regex scan found nothing');
  return stats.requests / ((performance.now() - start) / 1000);
}

/** The scan row: requests/s of the corpus's regex templates against autocannon on the same server. */
export async function measureRegexScan(report: Report): Promise<void> {
  const templates = await corpusTemplates();
  const server = await startServer();
  const client = new HttpClient({ connectionsPerOrigin: concurrency });
  try {
    await autocannonRate(server.port); // warm the server up
    const result = await compareRates(
      rounds,
      () => autocannonRate(server.port),
      () => scanRate(client, server.port, templates),
    );
    report.note(
      `A scan of ${templates.length} regex-heavy corpus templates (${REGEX_TEMPLATES.map((f) => f.split('/').pop()).join(', ')}) ` +
        `over 100,000 targets, every path answered with the same 100 KB page by one node:http keep-alive server in a ` +
        `worker thread; ${concurrency} template runs at once on ${concurrency} connections, stopped after ${seconds} s. ` +
        `Ratio: requests/s ÷ autocannon's requests/s for the page with ${concurrency} connections; ${rounds} ` +
        'alternating rounds, median ratio.',
    );
    report.table(
      ['scan', 'autocannon req/s', 'req/s', 'ratio'],
      [['regex-heavy corpus templates, 100 KB page', result.baseline, result.ours, result.ratio]],
    );
  } finally {
    await client.close();
    await server.stop();
  }
}
