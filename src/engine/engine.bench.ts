/**
 * `npm run bench -- engine`: requests per second of whole template runs (render, build, send, evaluate
 * matchers and extractors, build events) against a local keep-alive server, as a ratio of the bare
 * HttpClient sending the same request at the same concurrency, both measured in this run, alternately,
 * three rounds each; the median of the per-round ratios is reported. The server runs in a worker
 * thread so that it does not share an event loop with what is measured.
 */
import { type BenchSuite, compareRates, loopRate, type Report } from '../bench/report.js';
import { startWorkerServer } from '../bench/worker-server.js';
import { HttpClient, type HttpRequest } from '../http/index.js';
import { transportDispatch } from '../send/index.js';
import { type ParsedTemplate, parseTemplate } from '../template/index.js';
import { runTemplate } from './run-template.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = 3;
const concurrency = 10;

const serverSource = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const body = Buffer.from('<html><title>Admin panel</title><span class="version">4.8.1</span>' + 'x'.repeat(2000) + '</html>');
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': body.length, Server: 'bench/1.0' });
  response.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

const detection = `
id: bench-detect
info: {name: bench, author: keyhole, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/admin"]
    matchers-condition: and
    matchers:
      - type: word
        words: ["Admin panel", "</title>"]
        condition: and
      - type: status
        status: [200]
      - type: dsl
        dsl: ['contains(tolower(header), "text/html") && len(body) > 100']
    extractors:
      - type: regex
        group: 1
        regex: ['class="version">([0-9.]+)']
`;

const login = `
id: bench-login
info: {name: bench, author: keyhole, severity: high}
http:
  - raw:
      - |
        GET /admin HTTP/1.1
        Host: {{Hostname}}
        Authorization: Basic {{base64(username + ':' + password)}}
    attack: clusterbomb
    payloads:
      username: [admin, root, tomcat, manager, guest]
      password: [admin, root, tomcat, s3cret, guest, password, changeme, toor, 123456, letmein]
    threads: ${concurrency}
    matchers:
      - type: word
        words: ["never in the body"]
`;

/** Two requests per run: a detection block that extracts the version, then a block that uses it. */
const flowTemplate = (flow: string) => `
id: bench-flow
info: {name: bench, author: keyhole, severity: info}
flow: |
  ${flow}
http:
  - method: GET
    path: ["{{BaseURL}}/admin"]
    matchers:
      - type: word
        internal: true
        words: ["Admin panel"]
    extractors:
      - type: regex
        name: version
        internal: true
        group: 1
        regex: ['class="version">([0-9.]+)']
  - method: GET
    path: ["{{BaseURL}}/admin?v={{version}}"]
    matchers:
      - type: word
        words: ["Admin panel"]
`;

function parsed(text: string): ParsedTemplate {
  const result = parseTemplate('bench.yaml', text);
  if (result.status !== 'ok') throw new Error(`bench template does not parse: ${result.status}`);
  return result.template;
}

function startServer(): Promise<{ port: number; stop: () => Promise<void> }> {
  return startWorkerServer(serverSource);
}

function clientRate(client: HttpClient, port: number): Promise<number> {
  const request: HttpRequest = {
    method: 'GET',
    scheme: 'http',
    hostname: '127.0.0.1',
    port,
    target: '/admin',
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

/** Template runs as a scanner runs them: `loops` targets at once, counting requests. */
function engineRate(
  client: HttpClient,
  port: number,
  template: ParsedTemplate,
  loops: number,
): Promise<number> {
  const dispatch = transportDispatch(client);
  return loopRate(loops, seconds * 1000, async () => {
    const run = await runTemplate(template, `http://127.0.0.1:${port}`, { dispatch });
    return run.requests;
  });
}

export const suite: BenchSuite = async (report: Report) => {
  report.heading('Template engine');
  report.note(
    `Requests/s of template runs against a node:http keep-alive server in a worker thread, ${concurrency} at ` +
      `once, ÷ requests/s of the bare HttpClient sending the same GET at the same concurrency; ${rounds} ` +
      `alternating rounds of ${seconds} s per side, median ratio.`,
  );
  const server = await startServer();
  const client = new HttpClient({ connectionsPerOrigin: concurrency });
  const rows: (string | number)[][] = [];
  try {
    await clientRate(client, server.port); // warm up
    const detect = await compareRates(
      rounds,
      () => clientRate(client, server.port),
      () => engineRate(client, server.port, parsed(detection), concurrency),
    );
    rows.push([
      'detection: 1 path, word + status + dsl matchers, regex extractor',
      detect.baseline,
      detect.ours,
      detect.ratio,
    ]);
    const brute = await compareRates(
      rounds,
      () => clientRate(client, server.port),
      () => engineRate(client, server.port, parsed(login), 1),
    );
    rows.push([
      `default login: raw, clusterbomb 5×10, base64 helper, threads ${concurrency}`,
      brute.baseline,
      brute.ours,
      brute.ratio,
    ]);
    for (const [label, flow] of [
      ['flow: http(1) && http(2), 2 requests', 'http(1) && http(2)'],
      [
        'flow: JavaScript (if, for … of iterate(template.version), set), 2 requests',
        'if (http(1)) {\n    for (const v of iterate(template.version)) {\n      set("version", v)\n      http(2)\n    }\n  }',
      ],
    ] as const) {
      const template = parsed(flowTemplate(flow));
      const measured = await compareRates(
        rounds,
        () => clientRate(client, server.port),
        () => engineRate(client, server.port, template, concurrency),
      );
      rows.push([label, measured.baseline, measured.ours, measured.ratio]);
    }
  } finally {
    await client.close();
    await server.stop();
  }
  report.table(['template', 'HttpClient req/s', 'engine req/s', 'ratio'], rows);
};
