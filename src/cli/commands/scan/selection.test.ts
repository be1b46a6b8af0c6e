/**
 * `keyhole scan` on a templates library (test/library mimics nuclei-templates: a broken template, an
 * unsupported one, a payload helper under helpers/, a .nuclei-ignore): the templates directory,
 * nuclei's filters, -tl and -td, and templates with errors in folders.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';

const library = fileURLToPath(new URL('../../../../test/library', import.meta.url));

let host: TestHost;
let ws: Workspace;

beforeAll(async () => {
  host = await startHost('127.0.0.1', () => ({ body: 'ok' }));
  ws = new Workspace();
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

afterEach(() => {
  host.requests.length = 0;
});

const scan = (argv: readonly string[], env: Record<string, string> = {}) =>
  ws.cli(['scan', '--no-store', ...argv], env);

/** The ids `-tl` lists, in its order. */
async function listed(...argv: string[]): Promise<string[]> {
  const result = await scan(['--templates-dir', library, '-tl', ...argv]);
  expect(result.err).not.toMatch(/^error/m);
  expect(result.code).toBe(0);
  return result.out
    .split('\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => line.split(/\s+/)[0] ?? '');
}

describe('keyhole scan with a templates directory', () => {
  it('runs the whole directory when no -t is given, skipping a broken template with one line and counting it', async () => {
    const result = await scan(['--templates-dir', library, '-u', host.origin]);
    expect(result.code).toBe(0);
    const ids = result.out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => /^\[([^\]]+)\]/.exec(l)?.[1]);
    expect([...new Set(ids)].sort()).toEqual(['CVE-2023-0002', 'CVE-2024-0001', 'env-file', 'path-detect']);
    const typo = join(library, 'http/broken/typo.yaml');
    expect(result.err).toContain(
      `[WRN] skipped ${typo}:13:9: http[0].matchers[0]: a word matcher needs "words:" with at least one value (+1 more error)\n`,
    );
    expect(result.err).toContain(
      '[WRN] skipped 2 templates: dns protocol (1), out-of-band testing (1); keyhole templates validate lists them\n',
    );
    expect(result.err).toContain('  templates      4 (+2 unsupported, +1 with errors, skipped)\n');
  });

  it('finds payload files under helpers/ of the templates directory', async () => {
    const result = await scan(['--templates-dir', library, '-id', 'path-detect', '-u', host.origin]);
    expect(result.code).toBe(0);
    expect(host.requests.map((r) => r.path).sort()).toEqual(['/admin', '/status']);
  });

  it('leaves out what .nuclei-ignore lists, saying so, unless -itags or -it asks for it', async () => {
    const result = await scan(['--templates-dir', library, '-tl']);
    expect(result.out).not.toMatch(/dos-check|weak-match/);
    expect(result.err).toContain(
      `[INF] left out 2 templates that ${join(library, '.nuclei-ignore')} leaves out by default (tags dos); -itags TAG or -it PATH runs them\n`,
    );
    expect(await listed('-itags', 'dos', '-it', 'http/misc/weak-match.yaml')).toEqual([
      'CVE-2023-0002',
      'CVE-2024-0001',
      'env-file',
      'dos-check',
      'weak-match',
      'path-detect',
    ]);
  });

  it('runs a template that .nuclei-ignore lists when it is named with -t', async () => {
    expect(await listed('-t', 'http/misc/dos-check.yaml')).toEqual(['dos-check']);
  });

  it('resolves a relative -t path inside the templates directory when it does not exist from here', async () => {
    expect(await listed('-t', 'http/cves/')).toEqual(['CVE-2023-0002', 'CVE-2024-0001']);
  });

  it("accepts nuclei's -ud for --templates-dir, and finds the directory in $KEYHOLE_TEMPLATES", async () => {
    const ud = await scan(['-ud', library, '-tl', '-id', 'env-file']);
    expect(ud.out).toContain('env-file');
    const env = await scan(['-tl', '-id', 'env-file'], { KEYHOLE_TEMPLATES: library });
    expect(env.code).toBe(0);
    expect(env.out).toContain('env-file  medium    http/exposures/env-file.yaml');
  });

  it('uses ~/nuclei-templates when no directory is named and it exists', async () => {
    const home = ws.path('home');
    mkdirSync(home, { recursive: true });
    cpSync(join(library, 'http/exposures'), join(home, 'nuclei-templates/http/exposures'), {
      recursive: true,
    });
    const result = await scan(['-tl'], { HOME: home });
    expect(result.code).toBe(0);
    expect(result.out).toContain('env-file');
  });

  it('refuses a templates directory that does not exist, and a scan with neither -t nor a directory', async () => {
    const missing = await scan(['--templates-dir', 'no/such/dir', '-u', host.origin]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('error: --templates-dir no/such/dir: no such folder');
    const none = await scan(['-u', host.origin], { HOME: ws.dir });
    expect(none.code).toBe(1);
    expect(none.err).toContain(
      'error: no templates: give a file or folder with -t PATH, or a templates folder',
    );
  });
});

describe("keyhole scan's template filters", () => {
  it('takes templates with one of the -tags, and leaves out those with one of the -etags', async () => {
    expect(await listed('-tags', 'cve')).toEqual(['CVE-2023-0002', 'CVE-2024-0001']);
    expect(await listed('-tags', 'cve,exposure', '-etags', 'cve2023')).toEqual(['CVE-2024-0001', 'env-file']);
  });

  it('remembers the filter fields and the templates that compiled in $XDG_CACHE_HOME/keyhole and selects the same from them', async () => {
    const env = { XDG_CACHE_HOME: ws.path('xdg-cache') };
    const argv = ['--templates-dir', library, '-tl', '-tags', 'cve'];
    const first = await scan(argv, env);
    expect(first.code).toBe(0);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(ws.path('xdg-cache/keyhole')).sort()).toEqual([
      expect.stringMatching(/^template-checked-[0-9a-f]{16}\.json$/),
      expect.stringMatching(/^template-metadata-[0-9a-f]{16}\.json$/),
    ]);
    const second = await scan(argv, env);
    expect(second.out).toBe(first.out);
    expect(second.out).toContain('CVE-2024-0001');
  });

  it('runs the first of two templates with the same id and skips the other with a line naming both', async () => {
    mkdirSync(ws.path('dups'), { recursive: true });
    ws.file('dups/a.yaml', pathsTemplate('same-id', ['{{BaseURL}}/first']));
    ws.file('dups/b.yaml', pathsTemplate('same-id', ['{{BaseURL}}/second']));
    const result = await scan(['-t', 'dups', '-u', host.origin]);
    expect(result.code).toBe(0);
    expect(host.requests.map((r) => r.path)).toEqual(['/first']);
    expect(result.err).toContain(
      `[WRN] skipped ${ws.path('dups/b.yaml')}: its id "same-id" is the id of ${ws.path('dups/a.yaml')}, which runs; give each template an id of its own\n`,
    );
  });

  it('reads the values of -tags, -etags and -id from a file that a value names, one a line or comma-separated', async () => {
    ws.file('tags.txt', 'cve\n\nexposure\n');
    ws.file('etags.txt', 'cve2023\n');
    ws.file('ids.txt', 'ENV-FILE, cve-2024-*\n');
    expect(await listed('-tags', 'tags.txt', '-etags', 'etags.txt')).toEqual(['CVE-2024-0001', 'env-file']);
    expect(await listed('-id', 'ids.txt')).toEqual(['CVE-2024-0001', 'env-file']);
  });

  it('forces in the templates with an -itags tag, even when excluded or not asked for', async () => {
    expect(await listed('-etags', 'cve', '-itags', 'cve2023')).toEqual([
      'CVE-2023-0002',
      'env-file',
      'path-detect',
    ]);
  });

  it('takes severities with -s and leaves them out with -es', async () => {
    expect(await listed('-s', 'critical,high')).toEqual(['CVE-2023-0002', 'CVE-2024-0001']);
    expect(await listed('-severity', 'high', '-s', 'medium')).toEqual(['CVE-2023-0002', 'env-file']);
    expect(await listed('-es', 'info,medium')).toEqual(['CVE-2023-0002', 'CVE-2024-0001']);
  });

  it('takes ids as case-insensitive globs with -id, and leaves them out with -eid', async () => {
    expect(await listed('-id', 'cve-2024-*')).toEqual(['CVE-2024-0001']);
    expect(await listed('-template-id', 'env-???e')).toEqual(['env-file']);
    expect(await listed('-eid', 'env-file,path-*')).toEqual(['CVE-2023-0002', 'CVE-2024-0001']);
  });

  it('takes the templates of an -author, and combines kinds of filters with AND', async () => {
    expect(await listed('-a', 'alice')).toEqual(['CVE-2024-0001', 'env-file']);
    expect(await listed('-author', 'alice', '-tags', 'cve')).toEqual(['CVE-2024-0001']);
  });

  it('takes the templates whose metadata makes every -tc condition true', async () => {
    expect(await listed('-tc', 'cvss_score > 9')).toEqual(['CVE-2024-0001']);
    expect(await listed('-tc', 'vendor == "apache"')).toEqual(['CVE-2023-0002']);
    expect(await listed('-tc', 'severity == "info"', '-tc', 'len(http_method) == 1')).toEqual([
      'path-detect',
    ]);
    const none = await scan(['--templates-dir', library, '-tc', 'contains(body, "x")', '-tl']);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(
      /error: no template matches the filters \(\d+ templates left out by them\); check the values of -tc\n/,
    );
  });

  it('leaves out the files and folders of -et, unless -it names them', async () => {
    expect(await listed('-et', 'http/cves')).toEqual(['env-file', 'path-detect']);
    expect(await listed('-et', 'http/cves', '-it', 'http/cves/2023')).toEqual([
      'CVE-2023-0002',
      'env-file',
      'path-detect',
    ]);
  });

  it('reads -it and -et paths with *, ? or [..] as globs inside the templates directory, ** across folders', async () => {
    expect(await listed('-et', 'http/cves/*')).toEqual(['env-file', 'path-detect']);
    expect(await listed('-et', 'http/**/CVE-*.yaml')).toEqual(['env-file', 'path-detect']);
    expect(await listed('-et', 'http/cves/202[3]')).toEqual(['CVE-2024-0001', 'env-file', 'path-detect']);
    expect(await listed('-et', 'http/cves', '-it', 'http/*/2023/*.yaml')).toEqual([
      'CVE-2023-0002',
      'env-file',
      'path-detect',
    ]);
  });

  it('takes http templates with -pt http; another type selects nothing, with a notice', async () => {
    expect(await listed('-pt', 'http', '-tags', 'tech')).toEqual(['path-detect']);
    const dns = await scan(['--templates-dir', library, '-pt', 'dns', '-u', host.origin]);
    expect(dns.code).toBe(1);
    expect(dns.err).toContain('error: no template matches the filters: keyhole runs http templates only');
    const both = await scan(['--templates-dir', library, '-pt', 'http,dns', '-id', 'env-file', '-tl']);
    expect(both.err).toContain('[INF] keyhole runs http templates only: -pt dns selects nothing\n');
    expect(both.out).toContain('env-file');
  });

  it('refuses a selection that matches nothing, saying which filters were given', async () => {
    const result = await scan([
      '--templates-dir',
      library,
      '-tags',
      'nothing',
      '-s',
      'low',
      '-u',
      host.origin,
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /error: no template matches the filters \(\d+ templates left out by them\); check the values of -tags, -s\n/,
    );
    expect(host.requests).toEqual([]);
  });

  it('refuses an unknown severity, protocol type or a -tc that does not compile, naming the flag', async () => {
    const severity = await scan(['--templates-dir', library, '-s', 'hihg', '-tl']);
    expect(severity.code).toBe(1);
    expect(severity.err).toContain('error: -s/-severity: unknown severity "hihg" (did you mean "high"?)');
    const type = await scan(['--templates-dir', library, '-pt', 'htp', '-tl']);
    expect(type.err).toContain('error: -pt/-type: unknown protocol type "htp" (did you mean "http"?)');
    const condition = await scan(['--templates-dir', library, '-tc', 'severity ==', '-tl']);
    expect(condition.code).toBe(1);
    expect(condition.err).toMatch(/^error: -tc\/-template-condition "severity ==": .+\(at character \d+\)/m);
  });

  it('refuses filters with --rescan, which runs the templates of the stored scan', async () => {
    const result = await ws.cli(['scan', '--rescan', 'x', '-tags', 'cve']);
    expect(result.code).toBe(1);
    expect(result.err).toContain('leave out -tags');
  });
});

describe('keyhole scan -tl and -td', () => {
  it('lists the selected templates with id, severity and path, and sends nothing', async () => {
    const result = await scan(['--templates-dir', library, '-tl', '-tags', 'cve', '-u', host.origin]);
    expect(result.out).toBe(
      [
        'ID             SEVERITY  PATH',
        'CVE-2023-0002  high      http/cves/2023/CVE-2023-0002.yaml',
        'CVE-2024-0001  critical  http/cves/2024/CVE-2024-0001.yaml',
        '',
      ].join('\n'),
    );
    expect(host.requests).toEqual([]);
  });

  it("prints the selected templates' content with -td", async () => {
    const result = await scan(['--templates-dir', library, '-td', '-id', 'env-file']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^Template: http\/exposures\/env-file\.yaml\n\nid: env-file\ninfo:\n/);
  });
});

describe('keyhole scan with templates that have errors', () => {
  it('stops before any request when a template named with -t has errors', async () => {
    const result = await scan(['-t', join(library, 'http/broken/typo.yaml'), '-u', host.origin]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`error: ${join(library, 'http/broken/typo.yaml')}:14:9:`);
    expect(result.err).toContain('error: 1 template has errors; fix them or leave them out');
    expect(host.requests).toEqual([]);
  });

  it('says so when a template of a folder cannot be read well enough for the filters to judge it', async () => {
    mkdirSync(ws.path('mixed'), { recursive: true });
    cpSync(join(library, 'http/exposures/env-file.yaml'), ws.path('mixed/env-file.yaml'));
    ws.file('mixed/no-id.yaml', 'info:\n  name: n\n  author: a\n  tags: exposure\nhttp: []\n');
    const result = await scan(['-t', 'mixed', '-tags', 'exposure', '-u', host.origin]);
    expect(result.code).toBe(0);
    expect(result.err).toContain(
      `[WRN] skipped ${ws.path('mixed/no-id.yaml')}:1:1: id: the template needs an "id"`,
    );
    expect(result.err).toContain('templates      1 (+1 with errors, skipped)');
  });

  it('stops before any request with --strict when a folder holds a template with errors', async () => {
    const result = await scan(['--templates-dir', library, '--strict', '-u', host.origin]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('error: 1 template has errors');
    expect(host.requests).toEqual([]);
  });
});
