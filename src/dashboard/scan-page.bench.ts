/**
 * The scan page's first render in Chromium with 1,000,000 findings in the store (all in the scan
 * shown: the worst case), against the same page over a scan of 100 findings in the same run; both
 * scans ran with secret files, so the page draws its Authentication section too. Time
 * is the browser's own: from the navigation's start to the end of DOMContentLoaded (the table is in
 * the HTML, so it is rendered by then), and to the first row found in the page.
 */
import type { Page } from 'playwright-core';
import { seed } from '../api/bench/seed.js';
import type { BenchSuite } from '../bench/report.js';
import { type AuthenticationFigures, openStore } from '../store/index.js';
import { type ScratchDatabase, scratchPostgres, scratchSqlite } from '../store/testing/scratch.js';
import { chromiumMissing, launchChromium } from './testing/chromium.js';
import { serveDashboard } from './testing/serve.js';

const FINDINGS = Number(process.env.KEYHOLE_BENCH_FINDINGS ?? 1_000_000);
const BASELINE_FINDINGS = 100;
const LOADS = 7;
const BUDGET_MS = 1000;

/** What the scans ran with: three secret-file entries, one of which the target turned away. */
const AUTHENTICATION: AuthenticationFigures = {
  unauthenticated: 1200,
  entries: ['static[0]', 'static[1]', 'dynamic[0]'].map((entry, i) => ({
    fingerprint: `bench-${i}`,
    label: `${entry} of secrets.yaml`,
    kind: entry.startsWith('static') ? 'static' : 'dynamic',
    types: ['header'],
    scope: `app${i}.test`,
    requests: 40_000,
    refused: 0,
    rejected: i === 1 ? 40_000 : 0,
    logins: entry.startsWith('dynamic') ? 3 : 0,
    loginFailures: 0,
    relogins: entry.startsWith('dynamic') ? 2 : 0,
  })),
};

interface Render {
  readonly domContentLoaded: number;
  readonly firstRow: number;
}

async function renders(page: Page, url: string): Promise<Render[]> {
  const out: Render[] = [];
  for (let i = 0; i < LOADS; i++) {
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('tr[data-finding]');
    out.push(
      await page.evaluate(() => {
        const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
        const row = document.querySelector('tr[data-finding]');
        return {
          domContentLoaded: navigation?.domContentLoadedEventEnd ?? Number.NaN,
          // The row was parsed by DOMContentLoaded; responseEnd bounds when its bytes had arrived.
          firstRow: row === null ? Number.NaN : (navigation?.responseEnd ?? Number.NaN),
        };
      }),
    );
  }
  return out;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median first-render time (ms) of the scan page over a store seeded with `findings` findings in one scan. */
async function measure(create: () => Promise<ScratchDatabase>, findings: number) {
  const database = await create();
  const store = await openStore(database.location);
  const team = await store.teams.ensure('bench');
  const key = (await store.keys.create({ teamId: team.id, name: 'bench' })).secret;
  const seeded = await seed(store, team.id, { scans: 1, findings, retests: 0 });
  const [scan] = await store.scans.list(team.id, { offset: 0, limit: 1 });
  await store.authentication.add(scan?.id ?? '', AUTHENTICATION);
  await store.close();
  const served = await serveDashboard(database);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${served.url}/sign-in`);
    await page.fill('input[name=key]', key);
    await page.click('button[type=submit]');
    await page.waitForLoadState('load');
    const times = await renders(page, `${served.url}/scans/${scan?.id}`);
    const rows = await page.locator('tr[data-finding]').count();
    return {
      seedSeconds: seeded.seconds,
      rows,
      domContentLoaded: median(times.map((t) => t.domContentLoaded)),
      responseEnd: median(times.map((t) => t.firstRow)),
      worst: Math.max(...times.map((t) => t.domContentLoaded)),
    };
  } finally {
    await browser.close();
    await served.close();
  }
}

async function engine(name: string, create: () => Promise<ScratchDatabase>) {
  const baseline = await measure(create, BASELINE_FINDINGS);
  const big = await measure(create, FINDINGS);
  const ratio = big.domContentLoaded / baseline.domContentLoaded;
  return {
    rows: [
      [
        name,
        BASELINE_FINDINGS.toLocaleString('en-US'),
        baseline.responseEnd.toFixed(0),
        baseline.domContentLoaded.toFixed(0),
        baseline.worst.toFixed(0),
        '1.00',
      ],
      [
        name,
        FINDINGS.toLocaleString('en-US'),
        big.responseEnd.toFixed(0),
        big.domContentLoaded.toFixed(0),
        big.worst.toFixed(0),
        ratio.toFixed(2),
      ],
    ],
    note: `${name}: ${FINDINGS.toLocaleString('en-US')} findings seeded in ${big.seedSeconds.toFixed(0)} s; the page shows ${big.rows} rows; budget ${BUDGET_MS} ms: ${big.worst <= BUDGET_MS ? 'met' : 'NOT met'} (worst of ${LOADS} loads ${big.worst.toFixed(0)} ms).`,
  };
}

export const suite: BenchSuite = async (report) => {
  report.heading(`Dashboard: the scan page with ${FINDINGS.toLocaleString('en-US')} findings, in Chromium`);
  const missing = chromiumMissing();
  if (missing !== undefined) {
    report.note(`skipped: ${missing}`);
    return;
  }
  const engines: [string, () => Promise<ScratchDatabase>][] = [['SQLite', scratchSqlite]];
  if (process.env.KEYHOLE_BENCH_PG !== '0') engines.push(['PostgreSQL', scratchPostgres]);
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  for (const [name, create] of engines) {
    const measured = await engine(name, create);
    rows.push(...measured.rows);
    notes.push(measured.note);
  }
  report.table(
    [
      'engine',
      'findings in the scan',
      'response end (ms, median)',
      'DOMContentLoaded (ms, median)',
      'worst (ms)',
      'ratio to 100 findings',
    ],
    rows,
  );
  for (const note of notes) report.note(note);
};
