/** `keyhole scan` run in-process: flags, output forms, exit codes, the summary and Ctrl-C. */
import { mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost } from '../../../scan/testing/hosts.js';
import { pathsTemplate, Workspace } from '../../../scan/testing/workspace.js';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

let host: TestHost;
let ws: Workspace;
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  host = await startHost('127.0.0.1', async (request) => {
    if (request.path === '/slow') await sleep(3000);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      if (request.path.endsWith('/wait')) await sleep(Number(request.query.get('ms') ?? 100));
      if (/\/never(-again)?$/.test(request.path)) await new Promise(() => {});
      if (request.path.endsWith('/found')) return { body: 'ok found version=4.2.1' };
      if (request.path === '/severe') return { body: 'ok severe' };
      if (request.path === '/large') return { body: `ok ${'x'.repeat(4000)}` };
      return { status: 404, body: `nothing at ${request.path} x-scan=${request.headers['x-scan'] ?? ''}` };
    } finally {
      inFlight--;
    }
  });
  ws = new Workspace();
  ws.file(
    'found.yaml',
    pathsTemplate('found', ['{{BaseURL}}/found'], '').replace(
      '    matchers:',
      `    extractors:
      - type: regex
        name: version
        group: 1
        regex: ['version=([0-9.]+)']
    matchers:`,
    ),
  );
  ws.file('missing.yaml', pathsTemplate('missing', ['{{BaseURL}}/missing']));
  ws.file(
    'severe.yaml',
    pathsTemplate('severe', ['{{BaseURL}}/severe']).replace('severity: info', 'severity: high'),
  );
});

afterAll(async () => {
  await host.close();
  ws.remove();
});

afterEach(() => {
  host.requests.length = 0;
  mostInFlight = 0;
});

const scan = (...argv: string[]) => ws.cli(['scan', '--no-store', ...argv]);
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('keyhole scan output', () => {
  it('prints one console line per finding, with extracted values, and a summary on stderr', async () => {
    const result = await scan(
      '-u',
      host.origin,
      '-t',
      'found.yaml',
      '-t',
      'missing.yaml',
      '-t',
      'severe.yaml',
    );
    expect(result.code).toBe(0);
    expect(lines(result.out).sort()).toEqual([
      `[found:version] [http] [info] ${host.origin}/found ["4.2.1"]`,
      `[severe] [http] [high] ${host.origin}/severe`,
    ]);
    expect(result.err).toMatch(
      /^scan finished in \S+\n {2}targets {8}1\n {2}templates {6}3\n {2}requests {7}3 \(\S+\/s\)\n {2}findings {7}2: 1 high, 1 info\n {2}errors {9}0\n$/,
    );
  });

  it('exits 0 when nothing is found', async () => {
    const result = await scan('-u', host.origin, '-t', 'missing.yaml');
    expect(result).toMatchObject({ code: 0, out: '' });
    expect(result.err).toContain('findings       0\n');
  });

  it('prints only findings with -silent', async () => {
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-t', 'missing.yaml', '-silent');
    expect(result).toEqual({
      code: 0,
      out: `[found:version] [http] [info] ${host.origin}/found ["4.2.1"]\n`,
      err: '',
    });
  });

  it('prints JSONL with -j: one nuclei result event per line', async () => {
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-j');
    const events = lines(result.out).map((l) => JSON.parse(l));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      'template-id': 'found',
      'template-path': ws.path('found.yaml'),
      'extractor-name': 'version',
      'matched-at': `${host.origin}/found`,
      'extracted-results': ['4.2.1'],
      'matcher-status': true,
      type: 'http',
    });
    expect(Object.keys(events[0]).slice(0, 3)).toEqual(['template-id', 'template-path', 'info']);
  });

  it('also prints runs that matched nothing with -ms, with the URL they were run on', async () => {
    const result = await scan('-u', `${host.origin}/shop/`, '-t', 'found.yaml', '-t', 'missing.yaml', '-ms');
    expect(lines(result.out).sort()).toEqual([
      `[found:version] [matched] [http] [info] ${host.origin}/shop/found ["4.2.1"]`,
      `[missing] [failed] [http] [info] ${host.origin}/shop/`,
    ]);
    const jsonl = await scan('-u', `${host.origin}/shop/`, '-t', 'missing.yaml', '-ms', '-j');
    const failed = JSON.parse(jsonl.out);
    expect(failed).toMatchObject({
      'template-id': 'missing',
      'matcher-status': false,
      host: '127.0.0.1',
      port: String(host.port),
      scheme: 'http',
      url: `${host.origin}/shop/`,
      path: '/shop/',
    });
    expect(failed['matched-at']).toBeUndefined();
  });

  it('marks findings on a body cut at its limit and notes the cut bodies once, after the scan', async () => {
    ws.file(
      'large.yaml',
      pathsTemplate('large', ['{{BaseURL}}/large', '{{BaseURL}}/large?again'], '    max-size: 100\n'),
    );
    const result = await scan('-u', host.origin, '-t', 'large.yaml', '-t', 'found.yaml', '-j');
    expect(result.code).toBe(0);
    const events = lines(result.out).map((l) => JSON.parse(l));
    expect(events.map((e) => [e['template-id'], e['response-truncated']]).sort()).toEqual([
      ['found', undefined],
      ['large', true],
      ['large', true],
    ]);
    const notes = lines(result.err).filter((l) => l.includes('cut at'));
    expect(notes).toEqual([
      '[WRN] 2 responses were cut at 100 bytes, their body limit: matchers saw only those bytes, and findings on them carry "response-truncated": true (a template\'s max-size sets the limit)',
    ]);
    expect(result.err.indexOf(notes[0] ?? '')).toBeLessThan(result.err.indexOf('scan finished'));
  });

  it('writes findings to -o as console lines, or as JSONL with -j, while stdout shows them too', async () => {
    const plain = await scan('-u', host.origin, '-t', 'found.yaml', '-o', 'out.txt');
    expect(readFileSync(ws.path('out.txt'), 'utf8')).toBe(plain.out);
    const json = await scan('-u', host.origin, '-t', 'found.yaml', '-j', '-o', 'out.jsonl');
    expect(json.out).toBe(plain.out);
    const written = readFileSync(ws.path('out.jsonl'), 'utf8');
    expect(lines(written).map((l) => JSON.parse(l)['template-id'])).toEqual(['found']);
  });

  it('makes the folders of -o that do not exist yet', async () => {
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-j', '-o', 'out/nightly/found.jsonl');
    expect(result.code, result.err).toBe(0);
    const written = readFileSync(ws.path('out/nightly/found.jsonl'), 'utf8');
    expect(lines(written).map((l) => JSON.parse(l)['template-id'])).toEqual(['found']);
  });

  it('refuses an -o whose folder path runs through a file, before any request', async () => {
    ws.file('plain-file', '');
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-o', 'plain-file/found.txt');
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `error: -o ${ws.path('plain-file/found.txt')}: cannot write the output file (a part of its folder path is a file)`,
    );
    expect(host.requests).toEqual([]);
  });

  it('exits 2 when the output file cannot be written', async () => {
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-o', '/dev/full');
    expect(result.code).toBe(2);
    expect(result.err).toContain('error: writing /dev/full failed (no space left on the device)');
  });
});

describe('keyhole scan requests', () => {
  it('adds -H headers and -var variables to the requests', async () => {
    ws.file('var.yaml', pathsTemplate('var', ['{{BaseURL}}/{{section}}/found']));
    const result = await scan(
      '-u',
      host.origin,
      '-t',
      'var.yaml',
      '-H',
      'X-Scan: keyhole',
      '-var',
      'section=admin',
    );
    expect(result.code).toBe(0);
    expect(host.requests.map((r) => [r.path, r.headers['x-scan']])).toEqual([['/admin/found', 'keyhole']]);
  });

  it('probes a target written without a scheme: https first, then http', async () => {
    const result = await scan('-u', `127.0.0.1:${host.port}`, '-t', 'found.yaml');
    expect(result.code).toBe(0);
    expect(lines(result.out)).toEqual([
      `[found:version] [http] [info] http://127.0.0.1:${host.port}/found ["4.2.1"]`,
    ]);
  });

  it('reports a target where nothing answers and goes on with the others', async () => {
    const closed = await startHost('127.0.0.2', () => ({}));
    await closed.close();
    const result = await scan('-u', `127.0.0.2:${closed.port}`, '-u', host.origin, '-t', 'found.yaml');
    expect(result.code).toBe(0);
    expect(result.err).toContain(
      `[ERR] target 127.0.0.2:${closed.port} skipped: nothing answers over https (`,
    );
    expect(lines(result.out)).toHaveLength(1);
    expect(result.err).toContain('errors         1\n');
  });

  it('runs at most -c template runs at once', async () => {
    ws.file('wait.yaml', pathsTemplate('wait', ['{{BaseURL}}/wait?ms=400']));
    const targets = Array.from({ length: 8 }, (_, i) => ['-u', `${host.origin}/t${i}`]).flat();
    const result = await scan(...targets, '-t', 'wait.yaml', '-c', '2', '-rl', '0');
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(8);
    expect(mostInFlight).toBe(2);
  });

  it('sends at most -rl requests per second', async () => {
    const targets = Array.from({ length: 10 }, (_, i) => ['-u', `${host.origin}/r${i}`]).flat();
    const started = performance.now();
    const result = await scan(...targets, '-t', 'missing.yaml', '-rl', '5');
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(10);
    // One at once, then 9 more at 5 per second: at least 1.8 s.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1700);
  });

  it('gives up on a request after -timeout seconds and reports it', async () => {
    ws.file('slow.yaml', pathsTemplate('slow', ['{{BaseURL}}/slow']));
    const result = await scan('-u', host.origin, '-t', 'slow.yaml', '-timeout', '0.3', '-retries', '0');
    expect(result.code).toBe(0);
    expect(result.err).toContain(`[ERR] [slow] ${host.origin}/slow: timed out after 300 ms`);
  });

  it('runs a JavaScript flow and reports one that fails as an error of that template', async () => {
    const flow = (id: string, script: string) =>
      pathsTemplate(id, ['{{BaseURL}}/found']).replace('http:', `flow: |\n  ${script}\nhttp:`);
    ws.file('flow-ok.yaml', flow('flow-ok', 'for (const n of [1, 2]) { http(1) }'));
    ws.file('flow-bad.yaml', flow('flow-bad', 'http(1); undefinedThing()'));
    const result = await scan('-u', host.origin, '-t', 'flow-ok.yaml', '-t', 'flow-bad.yaml', '-j');
    expect(result.code).toBe(0);
    expect(host.requests).toHaveLength(3);
    expect(
      lines(result.out)
        .map((l) => JSON.parse(l)['template-id'])
        .sort(),
    ).toEqual(['flow-bad', 'flow-ok', 'flow-ok']);
    expect(result.err).toContain(
      `[ERR] [flow-bad] ${host.origin}: flow: ReferenceError: 'undefinedThing' is not defined (flow line 1)`,
    );
  });

  it('sends a request that failed in transport again, -retries times', async () => {
    const flaky = await startHost('127.0.0.2', () => ({ delayMs: Number.POSITIVE_INFINITY }));
    ws.file('flaky.yaml', pathsTemplate('flaky', ['{{BaseURL}}/flaky']));
    const result = await scan('-u', flaky.origin, '-t', 'flaky.yaml', '-timeout', '0.2', '-retries', '2');
    await flaky.close();
    expect(result.code).toBe(0);
    expect(flaky.requests.map((r) => r.path)).toEqual(['/flaky', '/flaky', '/flaky']);
    expect(result.err).toContain('requests       3 (');
  });

  it('runs a template named twice (itself and through its folder) once', async () => {
    mkdirSync(ws.path('only'), { recursive: true });
    ws.file('only/found.yaml', readFileSync(ws.path('found.yaml'), 'utf8'));
    const result = await scan(
      '-u',
      host.origin,
      '-t',
      'only',
      '-t',
      'only/found.yaml',
      '-t',
      './only/found.yaml',
    );
    expect(result.code).toBe(0);
    expect(host.requests.map((r) => r.path)).toEqual(['/found']);
  });

  it('runs a self-contained template once, whatever the number of targets', async () => {
    ws.file(
      'self.yaml',
      `id: self
info: {name: self, author: keyhole, severity: low}
self-contained: true
http:
  - method: GET
    path: ["${host.origin}/self/found"]
    matchers:
      - type: word
        words: ["ok"]
`,
    );
    const result = await scan('-u', `${host.origin}/one`, '-u', `${host.origin}/two`, '-t', 'self.yaml');
    expect(result.code).toBe(0);
    expect(host.requests.map((r) => r.path)).toEqual(['/self/found']);
    expect(lines(result.out)).toEqual([`[self] [http] [low] ${host.origin}/self/found`]);
  });
});

describe('keyhole scan against a host that stops answering (-mhe)', () => {
  const silent = createServer((socket) => socket.on('error', () => {}));
  let silentOrigin = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentOrigin = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    ws.file(
      'five.yaml',
      pathsTemplate(
        'five',
        ['/found', '/a', '/b', '/c', '/d'].map((p) => `{{BaseURL}}${p}`),
      ),
    );
  });
  afterAll(() => {
    silent.close();
  });
  const flags = ['-t', 'five.yaml', '-timeout', '0.2', '-retries', '0', '-c', '1'];

  it('skips the host after -mhe failures in a row, says so once, and counts what it was not sent', async () => {
    const result = await scan('-u', silentOrigin, '-u', host.origin, ...flags, '-mhe', '2');
    expect(result.code).toBe(0);
    expect(lines(result.out)).toEqual([`[five] [http] [info] ${host.origin}/found`]);
    const err = lines(result.err);
    expect(err.filter((l) => l.startsWith('[ERR]'))).toHaveLength(2);
    expect(err.filter((l) => l.startsWith('[WRN]'))).toEqual([
      `[WRN] ${silentOrigin.slice(7)} skipped for the rest of the scan: 2 requests in a row failed (last: timed out after 200 ms while waiting for the response head); -mhe sets how many failures, -nmhe never skips`,
    ]);
    expect(result.err).toContain('  requests       7 ');
    expect(result.err).toContain(
      '  errors         2\n  hosts skipped  1 (unresponsive; 3 requests not sent)\n',
    );
    expect(host.requests).toHaveLength(5);
  });

  it('never skips a host with -nmhe', async () => {
    const result = await scan('-u', silentOrigin, ...flags, '-mhe', '2', '-nmhe');
    expect(lines(result.err).filter((l) => l.startsWith('[ERR]'))).toHaveLength(5);
    expect(result.err).not.toContain('skipped');
  });

  it('refuses a -mhe that is not a whole number', async () => {
    const result = await scan('-u', silentOrigin, ...flags, '-mhe', 'many');
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toContain('-mhe/-max-host-error takes a whole number from 0 to 1000000, got "many"');
  });
});

describe('keyhole scan targets', () => {
  it('reads -l: one target per line, comments and blank lines ignored, duplicates (with -u too) once', async () => {
    ws.file(
      'hosts.txt',
      `# staging\n${host.origin}/one\n\n${host.origin}/two   # second\n${host.origin}/one\n`,
    );
    const result = await scan('-l', 'hosts.txt', '-u', `${host.origin}/two`, '-t', 'found.yaml');
    expect(result.code, result.err).toBe(0);
    expect(host.requests.map((r) => r.path)).toEqual(['/two/found', '/one/found']);
    expect(result.err).toContain('targets        2\n');
  });

  it('reports every bad line of -l with its number and sends nothing (exit 1)', async () => {
    ws.file('bad-hosts.txt', `${host.origin}/ok\nnot a host\nftp://files.example\n`);
    const result = await scan('-l', 'bad-hosts.txt', '-t', 'found.yaml');
    expect(result.code).toBe(1);
    expect(result.err.split('\n')).toEqual([
      'error: bad-hosts.txt:2: "not a host": a target has no spaces; put one target per line',
      'error: bad-hosts.txt:3: "ftp://files.example": unsupported scheme "ftp"; use http:// or https://',
      'error: 2 lines of bad-hosts.txt are not targets; fix or remove them (nothing was sent)',
      '',
    ]);
    expect(host.requests).toEqual([]);
  });

  it('shows the control characters of a bad line of -l as escapes', async () => {
    ws.file('hostile-hosts.txt', 'evil\x1b[2J\x07.example\nhost.example:8\u202e0\n');
    const result = await scan('-l', 'hostile-hosts.txt', '-t', 'found.yaml');
    expect(result.code).toBe(1);
    expect(result.err.split('\n').slice(0, 2)).toEqual([
      'error: hostile-hosts.txt:1: "evil\\x1b[2J\\x07.example": "evil\\x1b[2J\\x07.example" is not a valid host name',
      'error: hostile-hosts.txt:2: "host.example:8\\u202e0": port "8\\u202e0" is not a number from 1 to 65535',
    ]);
  });

  it('refuses a -u value that is not a target', async () => {
    expect(await scan('-u', 'http://', '-t', 'found.yaml')).toEqual({
      code: 1,
      out: '',
      err: 'error: -u "http://": not a valid URL\n',
    });
  });
});

describe('keyhole scan configuration errors (exit 1, before any request)', () => {
  const cases: [string, string[], string][] = [
    ['no target', ['-t', 'found.yaml'], 'error: no targets: give them with -u URL, -l FILE or --asset ID\n'],
    [
      'no template',
      ['-u', 'http://127.0.0.1:1'],
      'error: no templates: give a file or folder with -t PATH, or a templates folder with --templates-dir DIR (or $KEYHOLE_TEMPLATES)\n',
    ],
    [
      '-c 0',
      ['-u', 'x', '-t', 'found.yaml', '-c', '0'],
      'error: -c/-concurrency takes a whole number from 1 to 10000, got "0"\n',
    ],
    [
      '-rl abc',
      ['-u', 'x', '-t', 'found.yaml', '-rl', 'abc'],
      'error: -rl/-rate-limit takes a number 0 or more, got "abc"\n',
    ],
    [
      '-timeout -1',
      ['-u', 'x', '-t', 'found.yaml', '-timeout', '-1'],
      'error: -timeout takes a number from 0.001 to 86400, got "-1"\n',
    ],
    [
      '-H without a colon',
      ['-u', 'x', '-t', 'found.yaml', '-H', 'nocolon'],
      'error: -H takes "Name: value", got "nocolon"; e.g. -H "X-Scan: keyhole"\n',
    ],
    [
      '-var without =',
      ['-u', 'x', '-t', 'found.yaml', '-var', 'novalue'],
      'error: -var takes name=value, got "novalue"; e.g. -var username=admin\n',
    ],
  ];
  for (const [name, argv, err] of cases) {
    it(`says what is wrong: ${name}`, async () => {
      expect(await scan(...argv)).toEqual({ code: 1, out: '', err });
    });
  }

  it('lists every error of a broken template and sends nothing', async () => {
    ws.file(
      'broken.yaml',
      'id: broken\ninfo: {name: b, author: a}\nhttp:\n  - method: GET\n    pathz: ["{{BaseURL}}"]\n',
    );
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-t', 'broken.yaml');
    expect(result.code).toBe(1);
    expect(result.err).toContain(`error: ${ws.path('broken.yaml')}:5:5: http[0].pathz: unknown key "pathz"`);
    expect(result.err).toContain('error: 1 template has errors; fix them or leave them out');
    expect(host.requests).toEqual([]);
  });

  it('refuses a template file over 4 MiB from its size and sends nothing', async () => {
    ws.file('huge.yaml', 'id: huge\n');
    truncateSync(ws.path('huge.yaml'), 50 << 20);
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-t', 'huge.yaml');
    expect(result.code).toBe(1);
    expect(result.err).toContain(`error: ${ws.path('huge.yaml')}:1:1: it is 50 MiB, over the limit of 4 MiB`);
    expect(host.requests).toEqual([]);
  });

  it('reports a broken secret file with positions and sends nothing', async () => {
    ws.file('bad-secrets.yaml', 'static:\n  - type: bearer\n    domains: [a.test]\n    token: t0k3n\n');
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-sf', 'bad-secrets.yaml');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/error: bad-secrets\.yaml:2:11: static\[0\]\.type: /);
    expect(host.requests).toEqual([]);
  });

  it('skips an unsupported template with a one-line notice and runs the others', async () => {
    ws.file(
      'oob.yaml',
      'id: oob\ninfo: {name: oob, author: a, severity: info}\nhttp:\n  - method: GET\n    path: ["{{BaseURL}}/?u={{u}}"]\n    payloads:\n      u: ["{{interactsh-url}}"]\n    matchers:\n      - type: word\n        words: [x]\n',
    );
    const result = await scan('-u', host.origin, '-t', 'found.yaml', '-t', 'oob.yaml');
    expect(result.code).toBe(0);
    expect(result.err).toMatch(
      new RegExp(
        `\\[WRN\\] skipped ${ws.path('oob.yaml')}: uses what keyhole does not run yet: .*interactsh`,
      ),
    );
    expect(result.err).toContain('templates      1 (+1 unsupported, skipped)');
    expect(lines(result.out)).toHaveLength(1);
  });
});

describe('Ctrl-C', () => {
  it('stops the scan, keeps what was found, prints the summary and exits 2', async () => {
    ws.file('never.yaml', pathsTemplate('never', ['{{BaseURL}}/never']));
    const io = memoryIo({ cwd: ws.dir });
    const targets = [`${host.origin}/a`, `${host.origin}/b`, `${host.origin}/c`].flatMap((t) => ['-u', t]);
    const running = run(
      ['scan', '--no-store', ...targets, '-t', 'found.yaml', '-t', 'never.yaml', '-c', '2'],
      io,
    );
    while (!io.out().includes('[found:version]')) await sleep(10);
    while (!host.requests.some((r) => r.path.endsWith('/never'))) await sleep(10);
    io.interrupt();
    expect(await running).toBe(2);
    expect(io.out()).toContain(`[found:version] [http] [info] ${host.origin}/a/found ["4.2.1"]`);
    expect(io.err()).toContain('[WRN] stopping: requests in flight are aborted');
    expect(io.err()).toMatch(/scan interrupted after \S+: \d of 6 template runs done\n/);
    expect(io.err()).not.toContain('[ERR]');
    expect(io.exitedWith()).toBeUndefined();
  });

  it('quits at once on a second Ctrl-C', async () => {
    // A path of its own: a request of the test before may still reach the server after it ended.
    ws.file('never-again.yaml', pathsTemplate('never-again', ['{{BaseURL}}/never-again']));
    const io = memoryIo({ cwd: ws.dir });
    const running = run(['scan', '--no-store', '-u', host.origin, '-t', 'never-again.yaml'], io);
    while (!host.requests.some((r) => r.path.endsWith('/never-again'))) await sleep(10);
    io.interrupt();
    io.interrupt();
    expect(io.exitedWith()).toBe(130);
    await running;
  });
});
