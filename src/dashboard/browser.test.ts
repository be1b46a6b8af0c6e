/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core): what a person does,
 * and that nothing a target, a template or an imported file put in a finding runs as script.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerScans } from '../cli/commands/serve/scans.js';
import { pathsTemplate } from '../scan/testing/workspace.js';
import type { Scan } from '../store/index.js';
import { postgresTestDatabase, sqliteTestDatabase } from '../store/testing/databases.js';
import { chromiumMissing, launchChromium } from './testing/chromium.js';
import {
  authenticatedScan,
  entryFigures,
  resultEvent,
  type ServedDashboard,
  serveDashboard,
  uploadedScan,
} from './testing/serve.js';

const missing = chromiumMissing();
if (missing !== undefined) console.warn(`skipping the dashboard's browser tests: ${missing}`);

/** Each payload records that it ran, in a page-level flag, and opens a dialog. */
const PAYLOADS = {
  script: '<script>window.__ran=(window.__ran||0)+1;alert("script")</script>',
  img: '<img src=x onerror="window.__ran=(window.__ran||0)+1;alert(\'img\')">',
  svg: '<svg onload="window.__ran=1;alert(\'svg\')"></svg>',
  link: 'javascript:window.__ran=1;alert("link")',
};
const HOSTILE = Object.values(PAYLOADS).join(' ');

describe.skipIf(missing !== undefined)('the dashboard in Chromium', () => {
  let served: ServedDashboard;
  let browser: Browser;
  let key: string;
  let writeKey: string;
  let first: Scan;
  let second: Scan;
  let hostile: Scan;
  let running: Scan;
  let refused: Scan;

  beforeAll(async () => {
    served = await serveDashboard(await sqliteTestDatabase());
    const { store } = served;
    const team = await store.teams.ensure('default');
    key = (await store.keys.create({ teamId: team.id, name: 'browser' })).secret;
    writeKey = (await store.keys.create({ teamId: team.id, name: 'triager', scope: 'write' })).secret;
    const severities = ['critical', 'high', 'medium', 'low', 'info'] as const;
    const events = Array.from({ length: 40 }, (_, n) =>
      resultEvent(n, {
        info: { ...resultEvent(n).info, name: `Exposure ${n}`, severity: severities[n % 5] ?? 'info' },
      }),
    );
    first = await uploadedScan(store, team.id, 'weekly scan', events);
    second = await uploadedScan(store, team.id, 'weekly scan again', [...events.slice(5), resultEvent(99)]);
    hostile = await uploadedScan(store, team.id, `imported ${PAYLOADS.script}`, [
      resultEvent(1, {
        'template-id': `xss-${PAYLOADS.img}`,
        info: {
          ...resultEvent(1).info,
          name: `Name ${PAYLOADS.script}${PAYLOADS.img}`,
          description: HOSTILE,
        },
        host: `host-${PAYLOADS.img}`,
        'matched-at': PAYLOADS.link,
        'extracted-results': Object.values(PAYLOADS),
        'matcher-name': PAYLOADS.svg,
        response: `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>${HOSTILE}</html>`,
        request: `GET /?q=${PAYLOADS.script} HTTP/1.1\r\nHost: x\r\n\r\n`,
        'curl-command': `curl '${PAYLOADS.link}'`,
      }),
    ]);
    running = await store.scans.create({
      teamId: team.id,
      name: 'scan in progress',
      targets: ['https://app.test'],
    });
    await store.scans.markRunning(running.id);
    await store.scans.updateProgress(running.id, { progress: 10 });
    refused = await authenticatedScan(store, team.id, 'token expired', {
      unauthenticated: 1,
      entries: [
        entryFigures('static[0] of <b>x</b>.yaml', { requests: 6, rejected: 6 }),
        entryFigures('static[1] of <b>x</b>.yaml', { scope: 'api.test', requests: 3 }),
      ],
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  /** A fresh page that records dialogs, CSP violations and script errors. */
  async function watchedPage(): Promise<{ page: Page; dialogs: string[]; violations: string[] }> {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __violations: string[] }).__violations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    return { page, dialogs, violations };
  }

  async function signIn(page: Page, path = '/', apiKey = key): Promise<void> {
    await page.goto(served.url + path);
    await page.fill('input[name=key]', apiKey);
    await page.click('button[type=submit]');
    await page.waitForLoadState('load');
  }

  it('signs in, shows a scan, filters it, opens a finding, compares two scans and signs out', async () => {
    const { page, violations } = await watchedPage();
    await signIn(page);
    expect(new URL(page.url()).pathname).toBe('/scans');
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate(() => JSON.stringify(localStorage) + document.cookie)).not.toContain(key);

    await page.click('text=weekly scan again');
    await page.waitForSelector('svg.chart');
    expect(await page.locator('tr[data-finding]').count()).toBe(36);
    expect(await page.getAttribute('svg.chart', 'aria-label')).toBe(
      'critical 7, high 7, medium 8, low 7, info 7, unknown 0',
    );

    await page.selectOption('select[name=severity]', 'critical');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/severity=critical/);
    const badges = await page.locator('tr[data-finding] .badge').allTextContents();
    expect(badges).toHaveLength(7);
    expect(new Set(badges)).toEqual(new Set(['critical']));

    await page.locator('tr[data-finding] a').first().click();
    await page.waitForURL(/\/findings\//);
    expect(await page.textContent('h1')).toContain('Exposure');
    expect(await page.locator('pre').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('curl -X'), expect.stringContaining('[REDACTED]')]),
    );

    await page.goto(`${served.url}/compare?base=${first.id}&head=${second.id}`);
    const tabs = await page.locator('nav.tabs a').allTextContents();
    expect(tabs).toEqual(['New (1)', 'Fixed (5)', 'Unchanged (35)']);
    await page.click('text=Fixed (5)');
    await page.waitForURL(/kind=fixed/);
    expect(await page.locator('tr[data-finding]').count()).toBe(5);

    await page.click('text=Sign out');
    await page.waitForURL(/\/sign-in/);
    await page.goto(`${served.url}/scans`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('triages a finding from its page with a write key, and shows the change in its history', async () => {
    const { page, violations } = await watchedPage();
    const [finding] = (await served.store.browse.page(first.id, { filter: {}, sort: 'recorded', limit: 1 }))
      .findings;
    await signIn(page, `/findings/${finding?.id}`, writeKey);
    expect(await page.textContent('.status')).toBe('open');
    await page.selectOption('form.triage select[name=status]', 'accepted_risk');
    await page.click('form.triage button[type=submit]');
    await page.waitForSelector('text=triage: open → accepted_risk');
    expect(new URL(page.url()).pathname).toBe(`/findings/${finding?.id}`);
    expect(await page.textContent('.status')).toBe('accepted_risk');
    expect(await page.locator('table.history tr', { hasText: 'triage:' }).textContent()).toContain(
      'key triager',
    );
    expect(violations).toEqual([]);
    await page.close();
  });

  it('starts a retest of a finding from its page with a write key, shown queued; a read key has no button', async () => {
    const { page, violations } = await watchedPage();
    const [, finding] = (await served.store.browse.page(first.id, { filter: {}, sort: 'recorded', limit: 2 }))
      .findings;
    await signIn(page, `/findings/${finding?.id}`, writeKey);
    expect(await page.textContent('.retest-state, dd .muted')).toContain('never asked for');
    await page.click('form.retest button[type=submit]');
    await page.waitForSelector('.retest-state');
    expect(new URL(page.url()).pathname).toBe(`/findings/${finding?.id}`);
    expect(await page.textContent('.retest-state')).toContain('queued');
    const team = await served.store.teams.ensure('default');
    const requests = await served.store.retestRequests.ofFinding(finding?.id ?? '', team.id);
    expect(requests.map((r) => r.state)).toEqual(['queued']);
    await page.click('text=Sign out');
    await signIn(page, `/findings/${finding?.id}`, key);
    expect(await page.locator('form.retest').count()).toBe(0);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('opens the scan page nuclei links to after signing in', async () => {
    const { page } = await watchedPage();
    await signIn(page, `/scans/${first.id}?team_id=${first.teamId}`);
    expect(new URL(page.url()).pathname).toBe(`/scans/${first.id}`);
    expect(await page.textContent('h1')).toBe('weekly scan');
    await page.close();
  });

  it('refreshes the progress of a running scan while its page is open', async () => {
    const { page, violations } = await watchedPage();
    await signIn(page);
    const row = page.locator(`tr[data-live-scan="${running.id}"]`);
    expect(await row.locator('[data-percent]').textContent()).toBe('10%');
    await served.store.scans.updateProgress(running.id, { progress: 60 });
    await page.waitForFunction(
      (id) => document.querySelector(`[data-live-scan="${id}"] [data-percent]`)?.textContent === '60%',
      running.id,
      { timeout: 10_000 },
    );
    expect(await row.locator('progress').evaluate((bar) => (bar as HTMLProgressElement).value)).toBe(60);
    expect(violations).toEqual([]);
    await page.close();
  });

  it("shows a scan's authentication with the entry whose secret the target turned away marked in words", async () => {
    const { page, violations } = await watchedPage();
    await signIn(page, `/scans/${refused.id}`);
    const section = page.locator('section.authentication');
    expect(await section.locator('.auth-share').textContent()).toBe(
      'Problem: Authenticated: 3 of 10 requests (30%); 6 more carried a secret the target turned away',
    );
    const cells = (n: number) => section.locator('tr[data-auth-entry]').nth(n).locator('td').allInnerTexts();
    expect(await cells(0)).toEqual([
      'static[0] of <b>x</b>.yaml\nProblem: the target turned its secret away on every request',
      'static: header',
      'app.test',
      '6',
      '0',
      '6',
      '0 / 0 / 0',
    ]);
    expect(await cells(1)).toEqual([
      'static[1] of <b>x</b>.yaml',
      'static: header',
      'api.test',
      '3',
      '0',
      '0',
      '0 / 0 / 0',
    ]);
    expect(await section.locator('tr.auth-error').count()).toBe(1);
    expect(await page.locator('main b').count()).toBe(0);
    await page.goto(`${served.url}/scans`);
    await page.click(`a.auth-mark[href="/scans/${refused.id}#authentication"]`);
    await page.waitForURL(/#authentication$/);
    await page.goto(`${served.url}/scans/${first.id}`);
    expect(await page.locator('section.authentication').count()).toBe(0);
    expect(await page.locator('text=Authentication').count()).toBe(0);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('runs nothing that a finding holds: responses, extracted values, names and hosts are text', async () => {
    const { page, dialogs, violations } = await watchedPage();
    await signIn(page);
    const [finding] = (await served.store.browse.page(hostile.id, { filter: {}, sort: 'recorded', limit: 1 }))
      .findings;
    for (const path of ['/scans', `/scans/${hostile.id}`, `/findings/${finding?.id}`]) {
      await page.goto(served.url + path);
      await page.waitForLoadState('load');
      // Time for an injected handler (an image's onerror) to have fired.
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
      expect(await page.locator('script').count()).toBe(1);
      expect(
        await page.locator('main img, main svg:not(.chart), main [onerror], main [onload]').count(),
      ).toBe(0);
      expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    }
    const texts = (await page.locator('main').textContent()) ?? '';
    expect(texts).toContain(PAYLOADS.script);
    expect(texts).toContain(PAYLOADS.img);
    expect(texts).toContain(PAYLOADS.link);
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual(
      [],
    );
    await page.close();
  });

  it('blocks inline script by its Content-Security-Policy even if markup got in', async () => {
    const { page } = await watchedPage();
    await signIn(page);
    await page.evaluate(() => {
      const injected = document.createElement('div');
      injected.innerHTML = '<img src="x" onerror="window.__ran=1">';
      document.body.append(injected);
    });
    await page.waitForFunction(
      () => (window as unknown as { __violations: string[] }).__violations.length > 0,
      undefined,
      { timeout: 5_000 },
    );
    expect(await page.evaluate(() => (window as unknown as { __ran?: number }).__ran)).toBeUndefined();
    await page.close();
  });
});

/**
 * The Rescan button as `keyhole serve` wires it on PostgreSQL: the scan is queued again (its targets
 * and its templates as stored) for `keyhole worker`, and the browser lands on the new scan.
 */
describe.skipIf(missing !== undefined)("the scan page's Rescan button in Chromium", () => {
  let served: ServedDashboard;
  let browser: Browser;
  let writeKey: string;
  let readKey: string;
  let original: Scan;
  const stop = new AbortController();

  beforeAll(async () => {
    served = await serveDashboard(await postgresTestDatabase(), {
      rescan: (store) => {
        const scans = new ServerScans(store, {
          templatesDir: undefined,
          secretFiles: [],
          sessions: undefined,
          signal: stop.signal,
          log: { info: () => undefined, error: () => undefined },
        });
        return (scanId, teamId) => scans.rescan(scanId, teamId);
      },
    });
    const { store } = served;
    const team = await store.teams.ensure('default');
    writeKey = (await store.keys.create({ teamId: team.id, name: 'rescanner', scope: 'write' })).secret;
    readKey = (await store.keys.create({ teamId: team.id, name: 'reader' })).secret;
    const scan = await store.scans.create({
      teamId: team.id,
      name: 'nightly',
      targets: ['https://app.test', 'https://api.test'],
      templates: [
        { id: 'found', path: 'web/found.yaml', content: pathsTemplate('found', ['{{BaseURL}}/found']) },
      ],
    });
    await store.scans.markRunning(scan.id);
    await store.scans.finish(scan.id);
    original = await store.scans.require(scan.id);
    browser = await launchChromium();
  });
  afterAll(async () => {
    stop.abort();
    await browser?.close();
    await served?.close();
  });

  async function signIn(page: Page, path: string, apiKey: string): Promise<void> {
    await page.goto(served.url + path);
    await page.fill('input[name=key]', apiKey);
    await page.click('button[type=submit]');
    await page.waitForLoadState('load');
  }

  it('starts the scan again from its page and lands on the new scan, queued, with no button of its own', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await signIn(page, `/scans/${original.id}`, writeKey);
    await page.click('form.rescan button[type=submit]');
    await page.waitForURL(
      (url) => /^\/scans\/[0-9a-v]{20}$/.test(url.pathname) && !url.pathname.endsWith(original.id),
    );
    const again = new URL(page.url()).pathname.slice('/scans/'.length);
    expect(await page.textContent('h1')).toBe('nightly');
    expect(await page.textContent('dl.facts [data-status]')).toBe('queued');
    expect(await page.locator('form.rescan').count()).toBe(0);
    const team = await served.store.teams.ensure('default');
    const rescan = await served.store.scans.get(again, team.id);
    expect(rescan?.rescanOf).toBe(original.id);
    expect(await served.store.scans.targets(again)).toEqual(['https://app.test', 'https://api.test']);
    expect((await served.store.scans.templates(again)).map((t) => t.id)).toEqual(['found']);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('shows a read key no Rescan button', async () => {
    const page = await browser.newPage();
    await signIn(page, `/scans/${original.id}`, readKey);
    expect(await page.textContent('h1')).toBe('nightly');
    expect(await page.locator('form.rescan').count()).toBe(0);
    await page.close();
  });
});
