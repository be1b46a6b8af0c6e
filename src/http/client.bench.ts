/**
 * `npm run bench -- http`: requests per second of HttpClient against a local keep-alive server, as
 * a ratio of autocannon's rate against the same server at the same number of connections, both
 * measured in this run. The server runs in a worker thread so that it does not share an event loop
 * with the client being measured. The raw-socket path (unsafe requests: one connection per request)
 * is measured the same way, for reference. The two are measured alternately, `rounds` times each,
 * and the median of the per-round ratios is reported, so that a burst of load from other processes
 * on the machine skews one round rather than the figure.
 */
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { type BenchSuite, compareRates, loopRate, type Report } from '../bench/report.js';
import { startWorkerServer } from '../bench/worker-server.js';
import { HttpClient } from './client.js';
import type { HttpRequest } from './message.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = 3;
const connectionCounts = [1, 10, 50];

const serverSource = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const body = Buffer.from('{"status":"ok","items":[1,2,3]}');
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

function startServer(): Promise<{ port: number; stop: () => Promise<void> }> {
  return startWorkerServer(serverSource);
}

async function autocannonRate(port: number, connections: number): Promise<number> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}/items`, connections, duration: seconds });
  return result['2xx'] / result.duration;
}

async function clientRate(port: number, connections: number): Promise<number> {
  const client = new HttpClient({ connectionsPerOrigin: connections });
  const request: HttpRequest = {
    method: 'GET',
    scheme: 'http',
    hostname: '127.0.0.1',
    port,
    target: '/items',
    headers: [['User-Agent', 'keyhole-bench']],
    body: '',
  };
  try {
    await loopRate(connections, 300, () => client.send(request).then(() => 1));
    return await loopRate(connections, seconds * 1000, () => client.send(request).then(() => 1));
  } finally {
    await client.close();
  }
}

/** undici's own Pool.request at the same connection count: the ceiling of a client built on it. */
async function undiciRate(port: number, connections: number): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections });
  const send = async () => {
    const response = await pool.request({
      path: '/items',
      method: 'GET',
      headers: ['User-Agent', 'keyhole-bench'],
    });
    await response.body.arrayBuffer();
    return 1;
  };
  try {
    await loopRate(connections, 300, send);
    return await loopRate(connections, seconds * 1000, send);
  } finally {
    await pool.close();
  }
}

async function rawRate(port: number, connections: number): Promise<number> {
  const client = new HttpClient();
  const bytes = 'GET /items HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: keyhole-bench\r\n\r\n';
  const send = () => client.sendRaw({ scheme: 'http', hostname: '127.0.0.1', port, bytes }).then(() => 1);
  try {
    return await loopRate(connections, seconds * 1000, send);
  } finally {
    await client.close();
  }
}

export const suite: BenchSuite = async (report: Report) => {
  report.heading('HTTP client');
  report.note(
    `GET of a 32-byte JSON body from a node:http keep-alive server in a worker thread; ${rounds} alternating ` +
      `rounds of ${seconds} s per side; ratio = median over rounds of HttpClient requests/s ÷ autocannon ` +
      'requests/s at the same connection count.',
  );
  const server = await startServer();
  const rows: (string | number)[][] = [];
  try {
    await autocannonRate(server.port, 10); // warm the server up
    for (const connections of connectionCounts) {
      const result = await compareRates(
        rounds,
        () => autocannonRate(server.port, connections),
        () => clientRate(server.port, connections),
      );
      rows.push([`HttpClient, ${connections} connection(s)`, result.baseline, result.ours, result.ratio]);
    }
    const reference = await compareRates(
      rounds,
      () => autocannonRate(server.port, 10),
      () => undiciRate(server.port, 10),
    );
    rows.push([
      'reference: bare undici Pool.request, 10 connections',
      reference.baseline,
      reference.ours,
      reference.ratio,
    ]);
    const raw = await compareRates(
      rounds,
      () => autocannonRate(server.port, 10),
      () => rawRate(server.port, 10),
    );
    rows.push([
      'HttpClient.sendRaw (unsafe), 10 at once, new connection each',
      raw.baseline,
      raw.ours,
      raw.ratio,
    ]);
  } finally {
    await server.stop();
  }
  report.table(['client', 'autocannon req/s', 'client req/s', 'ratio'], rows);
};
