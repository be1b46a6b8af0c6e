#!/usr/bin/env node
/**
 * `npm run screenshots`: docs/dashboard/*.png, one per dashboard page, taken by Debian's Chromium
 * (playwright-core, /usr/bin/chromium) over the demo's data: the demo app on its default ports
 * (27801-27805), scanned with examples/secrets.yaml into a scratch store, once over all five areas
 * and once over four, plus an asset list; a finding is triaged before its page is taken. The pages
 * are served by `keyhole serve` over that store, so a write key sees what it sees there (the scan
 * page's Rescan button). Run it after `npm run build` (which the script does).
 */
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { openStore } from '../dist/store/index.js';
import { AREAS, DEFAULT_PORTS, start } from './demo-app/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEYHOLE = join(ROOT, 'dist/cli/main.js');
const OUT = join(ROOT, 'docs/dashboard');
const CHROMIUM = process.env.KEYHOLE_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

async function main() {
  const scratch = await mkdtemp(join(tmpdir(), 'keyhole-screenshots-'));
  const db = join(scratch, 'keyhole.db');
  const app = await start({ ports: DEFAULT_PORTS });
  try {
    // The templates and the secret file are copied first and named from the scratch folder, so the
    // paths the scans store (and the entries' labels, `static[0] of secrets.yaml`) are neutral.
    await cp(join(ROOT, 'examples/templates'), join(scratch, 'templates'), { recursive: true });
    await cp(join(ROOT, 'examples/secrets.yaml'), join(scratch, 'secrets.yaml'));
    await chmod(join(scratch, 'secrets.yaml'), 0o600);
    const urls = AREAS.map((area) => app.urls[area.key]);
    const scan = (name, targets) =>
      keyhole(
        [
          'scan',
          '-sf',
          'secrets.yaml',
          '-t',
          'templates/demo',
          '--name',
          name,
          '--db',
          db,
          '-silent',
          ...targets.flatMap((u) => ['-u', u]),
        ],
        scratch,
      );
    await scan('demo', urls);
    await scan('demo, four areas', urls.slice(0, 4));
    await writeFile(join(scratch, 'areas.txt'), `${urls.join('\n')}\n`);
    await keyhole(['assets', 'upload', join(scratch, 'areas.txt'), '--name', 'demo areas', '--db', db]);
    const key = (
      await keyhole(['keys', 'create', '--name', 'screenshots', '--scope', 'write', '--db', db])
    ).trim();
    const server = await serve([
      '--db',
      db,
      '--secrets',
      join(scratch, 'secrets.yaml'),
      '--templates-dir',
      join(scratch, 'templates'),
    ]);
    try {
      await shoot(server.url, db, key);
    } finally {
      await server.close();
    }
  } finally {
    await app.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

async function shoot(base, db, key) {
  const store = await openStore({ engine: 'sqlite', path: db, isDefault: false });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await mkdir(OUT, { recursive: true });
    const snap = async (name) => {
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
      console.log(`docs/dashboard/${name}.png`);
    };
    await page.goto(`${base}/sign-in`);
    await snap('sign-in');
    await page.fill('input[name=key]', key);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/scans$/);
    await snap('scans');
    await page.click('text=/^demo$/');
    await page.waitForSelector('svg.chart');
    await page.waitForSelector('form.rescan');
    await snap('scan');
    await page.locator('tr[data-finding] a').first().click();
    await page.waitForURL(/\/findings\//);
    await page.selectOption('form.triage select[name=status]', 'triaged');
    await page.click('form.triage button[type=submit]');
    await page.waitForSelector('text=triage: open → triaged');
    await snap('finding');
    const [later, earlier] = (
      await store.scans.list((await store.teams.byName('default')).id, { offset: 0, limit: 2 })
    ).map((s) => s.id);
    await page.goto(`${base}/compare?base=${earlier}&head=${later}&kind=fixed`);
    await snap('compare');
    await page.goto(`${base}/assets`);
    await snap('assets');
    await page.goto(`${base}/keys`);
    await snap('keys');
  } finally {
    await browser.close();
    await store.close();
  }
}

/** `keyhole serve` on a free port until `close()`; resolves once it listens. */
function serve(args) {
  const child = spawn(process.execPath, [KEYHOLE, 'serve', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ended = new Promise((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /"url":"(http:\/\/[^"]+)".*"msg":"listening"/.exec(out)?.[1];
      if (url === undefined) return;
      const close = () => {
        child.kill('SIGTERM');
        return ended;
      };
      resolve({ url, close });
    });
    child.on('error', reject);
    ended.then((code) => reject(new Error(`keyhole serve exited with ${code}`)));
  });
}

/** Runs keyhole (in `cwd`); resolves to its stdout, rejects when it fails. */
function keyhole(args, cwd = ROOT) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KEYHOLE, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`keyhole ${args[0]} exited with ${code}`)),
    );
  });
}

try {
  await main();
} catch (error) {
  console.error(`error: ${error.message}`);
  process.exitCode = 1;
}
