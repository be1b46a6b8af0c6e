/**
 * `npm run bench [-- name…]`: runs the benchmark suites and prints their tables. Every figure that
 * matters is a ratio against a baseline measured in the same run, because the machines are shared.
 */
import type { BenchSuite } from './report.js';
import { Report } from './report.js';

const suites: Record<string, () => Promise<{ suite: BenchSuite }>> = {
  dsl: () => import('../dsl/dsl.bench.js'),
  operators: () => import('../operators/operators.bench.js'),
  http: () => import('../http/client.bench.js'),
  secretfile: () => import('../secretfile/lookup.bench.js'),
  engine: () => import('../engine/engine.bench.js'),
  scan: () => import('../scan/scan.bench.js'),
  store: () => import('../api/api.bench.js'),
  templates: () => import('../template/library.bench.js'),
  'store-mix': () => import('../api/mix.bench.js'),
  dashboard: () => import('../dashboard/scan-page.bench.js'),
};

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(suites);
const report = new Report(process.stdout);
for (const name of names) {
  const load = suites[name];
  if (load === undefined) {
    process.stderr.write(`unknown suite "${name}"; known: ${Object.keys(suites).join(', ')}\n`);
    process.exitCode = 1;
    continue;
  }
  const { suite } = await load();
  await suite(report);
}
