#!/usr/bin/env node
/**
 * `npm run demo`: starts the demo app (examples/demo-app), scans its five areas with the secret file
 * (examples/secrets.yaml) and shows the planted weaknesses found behind each login, then runs the
 * same scan without the secret file and shows that it finds none of them. Exits 1 when either
 * expectation fails. Run it after `npm run build` (which `npm run demo` does).
 *
 *   node examples/demo.mjs                 # the app on its default ports, 27801-27805
 *   node examples/demo.mjs --base-port 0   # any free ports (the secret file is adapted to them)
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AREAS, DEFAULT_BASE_PORT, DEFAULT_PORTS, portsFrom, start } from './demo-app/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEYHOLE = join(ROOT, 'dist/cli/main.js');
const SECRETS = 'examples/secrets.yaml';
const TEMPLATES = 'examples/templates/demo';
const SCAN_TIMEOUT_MS = 120_000;

/** The weakness planted in each area and the template that finds it. */
const EXPECTED = {
  login: 'acme-notes-user-idor',
  bearer: 'acme-inventory-debug-env',
  basic: 'acme-admin-dotenv',
  header: 'acme-billing-log4j-version',
  query: 'acme-reports-stack-trace',
};

const colour = process.stdout.isTTY && process.env.NO_COLOR === undefined;
const paint = (code) => (text) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
const bold = paint('1');
const green = paint('32');
const red = paint('31');
const dim = paint('2');

async function main() {
  const basePort = parseBasePort();
  if (basePort === undefined) return 1;

  let app;
  try {
    app = await start({ ports: basePort === 0 ? anyPorts() : portsFrom(basePort) });
  } catch (error) {
    console.error(`${red('error:')} ${error.message}`);
    return 1;
  }
  const scratch = await mkdtemp(join(tmpdir(), 'keyhole-demo-'));
  try {
    return await demo(
      app,
      basePort === DEFAULT_BASE_PORT ? SECRETS : await adaptedSecrets(app, scratch),
      scratch,
    );
  } finally {
    await app.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

function parseBasePort() {
  try {
    const { values } = parseArgs({ options: { 'base-port': { type: 'string' } } });
    const port = values['base-port'] === undefined ? DEFAULT_BASE_PORT : Number(values['base-port']);
    if (!Number.isInteger(port) || port < 0 || port > 65535 - AREAS.length) {
      throw new Error(
        `--base-port must be 0 (any free ports) or a port number up to ${65535 - AREAS.length}`,
      );
    }
    return port;
  } catch (error) {
    console.error(`${red('error:')} ${error.message}\nusage: node examples/demo.mjs [--base-port N]`);
    return undefined;
  }
}

const anyPorts = () => Object.fromEntries(AREAS.map((area) => [area.key, 0]));

async function demo(app, secrets, scratch) {
  console.log(bold('The demo app: five areas, each behind its own kind of login (examples/demo-app)'));
  for (const area of AREAS) {
    console.log(`  ${app.urls[area.key]}  ${area.name.padEnd(18)} ${dim(area.auth)}`);
  }
  console.log();

  await protect(secrets);
  const validated = await keyhole(['secrets', 'validate', secrets]);
  if (validated.code !== 0) return fail('the secret file does not validate');

  const targets = AREAS.flatMap((area) => ['-u', app.urls[area.key]]);
  console.log();
  console.log(bold('1. With the secret file: keyhole logs in to each area and finds what lies behind'));
  const withSecrets = await keyhole(
    ['scan', '-sf', secrets, '-t', TEMPLATES, ...targets, '--name', 'demo'],
    scratch,
  );
  const found = withSecrets.findings;
  const missing = AREAS.filter((area) => !isFound(found, app, area.key));
  if (withSecrets.code !== 0) return fail(`keyhole scan exited with status ${withSecrets.code}`);
  if (missing.length > 0) {
    return fail(
      `not found with the secret file: ${missing.map((a) => `${EXPECTED[a.key]} (${a.name})`).join(', ')}`,
    );
  }
  console.log(green(`✔ all ${AREAS.length} planted weaknesses found, one in each area`));

  console.log();
  console.log(bold('2. The same scan without the secret file: every area turns the scanner away'));
  const withoutSecrets = await keyhole(['scan', '-t', TEMPLATES, ...targets, '--no-store'], scratch);
  const leaked = AREAS.filter((area) => isFound(withoutSecrets.findings, app, area.key));
  if (withoutSecrets.code !== 0) return fail(`keyhole scan exited with status ${withoutSecrets.code}`);
  if (leaked.length > 0) {
    return fail(`found without the secret file: ${leaked.map((a) => EXPECTED[a.key]).join(', ')}`);
  }
  console.log(green('✔ none of them found: they only exist behind the logins'));
  console.log();
  console.log('The first scan is in the store under the name "demo". To look around yourself:');
  const cli = 'node dist/cli/main.js';
  for (const [command, what] of [
    ['node examples/demo-app/server.js', 'the app alone, with its credentials and weaknesses'],
    [
      `${cli} secrets match -sf ${SECRETS} http://127.0.0.1:${DEFAULT_PORTS.query}/reports`,
      'what a URL gets',
    ],
    [`${cli} scans list --search demo`, 'the stored scan; its findings: findings list --scan SCAN_ID'],
    [`API_KEY=$(${cli} keys create --name me) && ${cli} serve`, 'the results API; in another terminal:'],
    [`curl -H "X-API-Key: $API_KEY" 'http://127.0.0.1:8080/v1/scans?search=demo'`, ''],
  ]) {
    console.log(dim(`  ${command}${what === '' ? '' : `   # ${what}`}`));
  }
  return showDashboard(cli);
}

/** The last step: a key for the dashboard, and where to open it once `keyhole serve` runs. */
async function showDashboard(cli) {
  const key = await captured(['keys', 'create', '--name', 'demo dashboard']);
  if (key === undefined) return fail('keyhole keys create failed');
  console.log();
  console.log(bold('3. The dashboard: start the server, open it in a browser and sign in with the key'));
  console.log(`  ${cli} serve`);
  console.log(`  ${green('http://127.0.0.1:8080/')}   API key: ${key}`);
  console.log(dim('  (the key is shown once; `keys revoke` ends it. The demo scan is the one named "demo")'));
  return 0;
}

/** Runs keyhole and resolves to what it printed on stdout, trimmed (undefined when it failed). */
function captured(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [KEYHOLE, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', () => resolve(undefined));
    child.on('close', (status) => resolve(status === 0 ? out.trim() : undefined));
  });
}

function fail(message) {
  console.log(red(`✘ ${message}`));
  return 1;
}

/**
 * A file holding secrets should be readable by its owner only, and keyhole warns otherwise; a fresh
 * clone leaves examples/secrets.yaml readable by everyone, so the demo restricts it first.
 */
async function protect(file) {
  if (process.platform === 'win32') return;
  const path = resolve(ROOT, file);
  const mode = (await stat(path)).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  await chmod(path, mode & 0o700);
  console.log(dim(`(${file} holds the demo's secrets: made it readable by its owner only, chmod 600)`));
}

/** examples/secrets.yaml with the default ports replaced by the ports the app got. */
async function adaptedSecrets(app, scratch) {
  let text = await readFile(join(ROOT, SECRETS), 'utf8');
  for (const area of AREAS) {
    text = text.replaceAll(`:${DEFAULT_PORTS[area.key]}'`, `:${new URL(app.urls[area.key]).port}'`);
  }
  const path = join(scratch, 'secrets.yaml');
  const loginTemplate = JSON.stringify(join(ROOT, 'examples/templates/login.yaml'));
  await writeFile(path, text.replace('template: templates/login.yaml', `template: ${loginTemplate}`), {
    mode: 0o600,
  });
  return path;
}

/**
 * Runs keyhole with the terminal as its output, so that what it prints shows as it comes and in
 * order (colours included). With `scratch`, it also writes its findings to a file there
 * (`-o`), which is how the demo checks them; resolves to the exit code and those findings.
 */
async function keyhole(args, scratch) {
  console.log(`$ keyhole ${args.join(' ')}`);
  const output = scratch === undefined ? undefined : join(scratch, `findings-${Date.now()}.jsonl`);
  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [KEYHOLE, ...args, ...(output === undefined ? [] : ['-o', output])],
      {
        cwd: ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    const timer = setTimeout(() => {
      console.error(red(`keyhole did not finish within ${SCAN_TIMEOUT_MS / 1000} s; stopping it`));
      child.kill();
    }, SCAN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      console.error(`${red('error:')} cannot run keyhole: ${error.message}`);
      resolve(1);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve(status ?? 1);
    });
  });
  return { code, findings: output === undefined ? [] : await findingsIn(output) };
}

/**
 * The findings keyhole wrote to a file (none when it wrote no file): console lines of the form
 * `[template-id] [http] [severity] matched-at …` (`[template-id:name]` for a named matcher or extractor).
 */
async function findingsIn(path) {
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.matchAll(/^\[([\w-]+)(?::[^\]]*)?\] \[http\] \[(\w+)\] (\S+)/gm);
  return [...lines].map(([, template, severity, at]) => ({ template, severity, at }));
}

function isFound(findings, app, key) {
  return findings.some((f) => f.template === EXPECTED[key] && f.at.startsWith(`${app.urls[key]}/`));
}

process.exitCode = await main();
