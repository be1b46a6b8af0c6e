/**
 * Form logins without a template against real apps from Debian's packages: WordPress and
 * phpMyAdmin, installed by test/real-apps/setup.sh (apt, MariaDB on this machine) and served by
 * PHP's built-in server on 127.0.0.1. Where the script cannot install them (not root, no apt-get)
 * the tests are skipped, their name saying why.
 */
import { execFile, spawn } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Workspace } from '../../../scan/testing/workspace.js';

const SETUP = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/real-apps/setup.sh');

type Setup =
  | { readonly ok: true; readonly values: Record<string, string> }
  | { readonly ok: false; readonly reason: string };

function runSetup(): Promise<Setup> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SETUP], { timeout: 15 * 60_000, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error === null) {
        const values = Object.fromEntries(
          stdout.split('\n').flatMap((line) => {
            const at = line.indexOf('=');
            return at > 0 ? [[line.slice(0, at), line.slice(at + 1)]] : [];
          }),
        );
        resolve({ ok: true, values });
      } else if (error.code === 3) resolve({ ok: false, reason: stderr.trim() });
      else reject(new Error(`${SETUP} failed (${error.message}): ${stderr.trim()}`));
    });
  });
}

const setup = await runSetup();
const values = setup.ok ? setup.values : {};
const value = (name: string) => values[name] ?? '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** PHP's built-in server on 127.0.0.1 for the app in `root`; stopped by the returned function. */
async function servePhp(root: string, prepend?: string): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const options = prepend === undefined ? [] : ['-d', `auto_prepend_file=${prepend}`];
  const php = spawn('php', [...options, '-S', `127.0.0.1:${port}`, '-t', root], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await answers(port)); i++) await new Promise((r) => setTimeout(r, 100));
  return { url: `http://127.0.0.1:${port}`, stop: () => php.kill() };
}

let ws: Workspace;
let wordpress: { url: string; stop: () => void };
let phpmyadmin: { url: string; stop: () => void };

const skipped = setup.ok ? '' : ` (skipped: ${setup.reason})`;

describe.skipIf(!setup.ok)(`form logins to real apps from Debian${skipped}`, () => {
  beforeAll(async () => {
    ws = new Workspace();
    wordpress = await servePhp(value('WORDPRESS_ROOT'), value('WORDPRESS_PREPEND'));
    phpmyadmin = await servePhp(value('PHPMYADMIN_ROOT'));
  });

  afterAll(() => {
    wordpress?.stop();
    phpmyadmin?.stop();
    ws?.remove();
  });

  function formEntry(url: string, user: string): string {
    const host = new URL(url).host;
    return ws.file(
      `${host.replace(':', '-')}.yaml`,
      `dynamic:
  - login:
      url: ${url}
      username: ${user}
      password: {env: APP_PASSWORD}
    type: cookie
    domains: ["${host}"]
`,
    );
  }

  function pageTemplate(id: string, path: string, word: string): string {
    return ws.file(
      `${id}.yaml`,
      `id: ${id}
info: {name: ${id}, author: keyhole, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}${path}"]
    matchers-condition: and
    matchers:
      - type: status
        status: [200]
      - type: word
        words: ['${word}']
`,
    );
  }

  it('log into WordPress with its own login form, no template, and scan a page only its admin sees', async () => {
    const secrets = formEntry(`${wordpress.url}/wp-login.php`, value('WORDPRESS_USER'));
    const template = pageTemplate('wp-profile', '/wp-admin/profile.php', 'id="your-profile"');
    const result = await ws.cli(
      ['scan', '-u', wordpress.url, '-t', template, '-sf', secrets, '--no-store', '-timeout', '30'],
      { APP_PASSWORD: value('WORDPRESS_PASSWORD') },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('[wp-profile]');
    expect(result.err).toMatch(/authenticated +1 of 1 request/);
    expect(`${result.out}${result.err}`).not.toContain(value('WORDPRESS_PASSWORD'));
  }, 120_000);

  it('fail the scan, saying the form came back, when the WordPress password is wrong', async () => {
    const secrets = formEntry(`${wordpress.url}/wp-login.php`, value('WORDPRESS_USER'));
    const template = pageTemplate('wp-profile-2', '/wp-admin/profile.php', 'id="your-profile"');
    const result = await ws.cli(
      ['scan', '-u', wordpress.url, '-t', template, '-sf', secrets, '--no-store', '-timeout', '30'],
      { APP_PASSWORD: 'not-the-password' },
    );
    expect(result.code).toBe(2);
    expect(result.err).toMatch(
      /login failed for dynamic\[0\] of .*\.yaml: the login form was shown again after submitting, http:\/\/127\.0\.0\.1:\d+\/wp-login\.php \(status 200\): the username or password is probably wrong/,
    );
  }, 120_000);

  it('log into phpMyAdmin with its own login form, no template, and list the databases its user may see', async () => {
    const secrets = formEntry(`${phpmyadmin.url}/index.php`, value('PHPMYADMIN_USER'));
    const template = pageTemplate('pma-databases', '/index.php?route=/server/databases', 'keyhole_wp');
    const result = await ws.cli(
      ['scan', '-u', phpmyadmin.url, '-t', template, '-sf', secrets, '--no-store', '-timeout', '30'],
      { APP_PASSWORD: value('PHPMYADMIN_PASSWORD') },
    );
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('[pma-databases]');
  }, 120_000);
});
