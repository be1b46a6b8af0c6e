import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../io.js';
import { run } from '../../program.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const binary = join(root, 'dist/cli/main.js');

const VALID = `static:
  - type: header
    domains: [api.app.test]
    headers: [{key: X-API-Key, value: key-123456}]
  - type: query
    domains-regex: ['.*\\.app\\.test']
    params: [{key: token, value: q-secret}]
`;
const OTHER = `static:
  - type: bearertoken
    domains: [api.app.test, other.test]
    token: other-token
`;
const CHECKED = `static:
  - type: bearertoken
    domains: [api.app.test]
    token: checked-token
    verify: {url: "https://api.app.test/v1/me", regex: '"user":"svc"', every: 10m}
  - type: cookie
    domains: [app.test]
    cookies: [{key: sid, value: s-1}]
    verify: {url: "https://sso.test/me"}
`;
const INVALID = `static:
  - type: basicauth
    domain: [a.test]
    username: u
    password: p
    token: t
`;

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keyhole-cli-'));
  for (const [name, text] of Object.entries({
    'valid.yaml': VALID,
    'other.yaml': OTHER,
    'invalid.yaml': INVALID,
    'checked.yaml': CHECKED,
    'checked-ok.yaml': CHECKED.split('  - type: cookie')[0] ?? '',
  })) {
    await writeFile(join(dir, name), text);
    await chmod(join(dir, name), 0o600);
  }
});

afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const io = memoryIo({ cwd: dir });
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('keyhole secrets validate', () => {
  it('exits 0 and summarises a valid file', async () => {
    expect(await cli('secrets', 'validate', 'valid.yaml')).toEqual({
      code: 0,
      out: 'valid.yaml: valid (2 static, 0 dynamic)\n',
      err: '',
    });
  });

  it('exits 1 and prints every error as file:line:col: path: message', async () => {
    const { code, out } = await cli('secrets', 'validate', 'invalid.yaml');
    expect(code).toBe(1);
    expect(out.split('\n')).toEqual([
      'invalid.yaml:2:5: static[0]: missing domains or domains-regex: say which hosts get this secret, e.g. domains: [app.example.com] or domains-regex: [".*\\\\.example\\\\.com"]',
      'invalid.yaml:3:5: static[0].domain: unknown key "domain" (did you mean "domains"?); expected one of "type", "domains", "domains-regex", "username", "password", "token", "headers", "params", "cookies", "verify"',
      'invalid.yaml:6:5: static[0].token: "token" is only used with type: bearertoken; this entry is type: basicauth, so remove it (or change the type)',
      'invalid.yaml: 3 errors',
      '',
    ]);
  });

  it('reports several files, each with its own result', async () => {
    const { code, out } = await cli('secrets', 'validate', 'valid.yaml', 'invalid.yaml');
    expect(code).toBe(1);
    expect(out).toContain('valid.yaml: valid (2 static, 0 dynamic)\n');
    expect(out).toContain('invalid.yaml: 3 errors\n');
  });

  it('checks a verify: and counts the entries that have one, in text and JSON', async () => {
    expect(await cli('secrets', 'validate', 'checked-ok.yaml')).toEqual({
      code: 0,
      out: 'checked-ok.yaml: valid (1 static, 0 dynamic, 1 with verify:)\n',
      err: '',
    });
    const json = JSON.parse((await cli('secrets', 'validate', 'checked-ok.yaml', '--json')).out);
    expect(json.files).toEqual([
      { file: 'checked-ok.yaml', valid: true, errors: 0, warnings: 0, static: 1, dynamic: 0, verified: 1 },
    ]);
  });

  it("refuses a verify: URL outside its entry's scope, with where and why", async () => {
    const { code, out } = await cli('secrets', 'validate', 'checked.yaml', '--json');
    expect(code).toBe(1);
    const parsed = JSON.parse(out);
    expect(parsed.valid).toBe(false);
    expect(parsed.diagnostics).toEqual([
      {
        severity: 'error',
        file: 'checked.yaml',
        line: 9,
        col: 19,
        path: 'static[1].verify.url',
        message:
          'sso.test is outside the scope of this entry (app.test): the check is sent with the secret, so it may only go where the secret goes; give a URL on a host the entry applies to',
      },
    ]);
  });

  it('says where a matched secret is checked before its first request', async () => {
    const text = await cli('secrets', 'match', '-sf', 'checked-ok.yaml', 'https://api.app.test/x');
    expect(text.out).toBe(
      'https://api.app.test/x\n' +
        '  secret: checked-ok.yaml static[0] (bearertoken), matched by domains "api.app.test"\n' +
        '  checked before its first request at https://api.app.test/v1/me\n' +
        '  header  Authorization: Bearer [REDACTED]\n',
    );
    const json = await cli('secrets', 'match', '--json', '-sf', 'checked-ok.yaml', 'https://api.app.test/x');
    expect(JSON.parse(json.out).results[0].secret.verify).toBe('https://api.app.test/v1/me');
  });

  it('prints JSON with --json', async () => {
    const { code, out } = await cli('secrets', 'validate', 'invalid.yaml', '--json');
    expect(code).toBe(1);
    const parsed = JSON.parse(out);
    expect(parsed.valid).toBe(false);
    expect(parsed.files).toEqual([
      { file: 'invalid.yaml', valid: false, errors: 3, warnings: 0, static: 0, dynamic: 0, verified: 0 },
    ]);
    expect(parsed.diagnostics[0]).toMatchObject({
      severity: 'error',
      file: 'invalid.yaml',
      line: 2,
      col: 5,
      path: 'static[0]',
    });
  });

  it('warns when a file holding literal secrets is readable by others, and stays valid', async () => {
    await writeFile(join(dir, 'open.yaml'), VALID);
    await chmod(join(dir, 'open.yaml'), 0o644);
    const { code, out } = await cli('secrets', 'validate', 'open.yaml');
    expect(code).toBe(0);
    expect(out).toMatch(
      /^open\.yaml:1:1: warning: this file holds secrets written in it and other users can read it \(mode 0644\)/,
    );
  });

  it('shows examples in --help', async () => {
    const { code, out } = await cli('secrets', 'validate', '--help');
    expect(code).toBe(0);
    expect(out).toContain('$ keyhole secrets validate secrets.yaml');
  });
});

describe('keyhole secrets match', () => {
  it('shows the entry and what it adds, redacted', async () => {
    const { code, out } = await cli(
      'secrets',
      'match',
      '-sf',
      'valid.yaml',
      'https://api.app.test/x',
      'https://www.app.test/?a=1',
      'https://nope.test/',
    );
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'https://api.app.test/x',
        '  secret: valid.yaml static[0] (header), matched by domains "api.app.test"',
        '  header  X-API-Key: [REDACTED]',
        'https://www.app.test/?a=1',
        '  secret: valid.yaml static[1] (query), matched by domains-regex ".*\\\\.app\\\\.test"',
        '  query   token=[REDACTED]',
        '  url     https://www.app.test/?a=1&token=[REDACTED]',
        'https://nope.test/',
        '  no secret',
        '',
      ].join('\n'),
    );
    expect(out).not.toContain('key-123456');
  });

  it('shows the values with --reveal', async () => {
    const { out } = await cli('secrets', 'match', '-sf', 'valid.yaml', 'https://api.app.test/', '--reveal');
    expect(out).toContain('  header  X-API-Key: key-123456\n');
  });

  it('takes -sf repeated or as a comma list, as one list in the order given', async () => {
    const repeated = await cli(
      'secrets',
      'match',
      '-sf',
      'other.yaml',
      '-sf',
      'valid.yaml',
      'https://api.app.test/',
      '--json',
    );
    const comma = await cli(
      'secrets',
      'match',
      '-sf',
      'other.yaml,valid.yaml',
      'https://api.app.test/',
      '--json',
    );
    const long = await cli(
      'secrets',
      'match',
      '--secret-file',
      'valid.yaml,other.yaml',
      'https://api.app.test/',
      '--json',
    );
    expect(JSON.parse(repeated.out).results[0].secret).toMatchObject({
      file: 'other.yaml',
      type: 'bearertoken',
    });
    expect(JSON.parse(comma.out)).toEqual(JSON.parse(repeated.out));
    expect(JSON.parse(long.out).results[0].secret).toMatchObject({ file: 'valid.yaml', type: 'header' });
  });

  it('prints JSON with the headers, cookies and query it would add', async () => {
    const { out } = await cli('secrets', 'match', '-sf', 'valid.yaml', 'api.app.test', '--json');
    expect(JSON.parse(out)).toEqual({
      results: [
        {
          url: 'https://api.app.test/',
          secret: {
            file: 'valid.yaml',
            section: 'static',
            index: 0,
            entry: 'static[0]',
            type: 'header',
            matchedBy: 'domains "api.app.test"',
            adds: { headers: [['X-API-Key', '[REDACTED]']], cookies: [], query: [] },
          },
        },
      ],
    });
  });

  it('says that a dynamic entry needs a login and shows its templated values', async () => {
    await writeFile(
      join(dir, 'login.yaml'),
      [
        'id: l',
        'info: {name: Login, author: keyhole, severity: info}',
        'http:',
        '  - method: POST',
        '    path: ["{{BaseURL}}/login"]',
        '    extractors:',
        '      - {type: regex, name: session, internal: true, regex: ["x"]}',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'dyn.yaml'),
      'dynamic:\n  - template: login.yaml\n    type: bearertoken\n    domains: [app.test]\n    token: "{{session}}"\n',
    );
    const { code, out } = await cli('secrets', 'match', '-sf', 'dyn.yaml', 'http://app.test/');
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'http://app.test/',
        '  secret: dyn.yaml dynamic[0] (bearertoken), matched by domains "app.test"',
        '  needs a login: template login.yaml, run against http://app.test',
        '  values below are templated: {{name}} is filled from the login',
        '  header  Authorization: Bearer {{session}}',
        '',
      ].join('\n'),
    );
  });

  it('says which kind of login an entry without a template uses', async () => {
    await writeFile(
      join(dir, 'kinds.yaml'),
      `dynamic:
  - login: {url: https://app.test/signin, username: alice, password: pw}
    type: cookie
    domains: [app.test]
  - oauth2: {token-url: https://idp.test/token, grant: client_credentials, client-id: c, client-secret: cs}
    type: bearertoken
    domains: [api.test]
  - login: {url: https://spa.test/#/login, browser: true, username: alice, password: pw}
    type: bearertoken
    token: "{{local.access_token}}"
    domains: [spa.test]
`,
    );
    const { code, out } = await cli(
      'secrets',
      'match',
      '-sf',
      'kinds.yaml',
      'http://app.test/',
      'https://api.test/',
      'https://spa.test/',
    );
    expect(code).toBe(0);
    expect(out.split('\n').filter((line) => line.includes('needs a login'))).toEqual([
      '  needs a login: form login at https://app.test/signin, run against https://app.test/signin',
      '  needs a login: OAuth 2.0 token from https://idp.test/token, run against https://idp.test/token',
      '  needs a login: browser login at https://spa.test/#/login, run against https://spa.test/#/login',
    ]);
    const json = await cli('secrets', 'match', '--json', '-sf', 'kinds.yaml', 'https://spa.test/');
    expect(JSON.parse(json.out).results[0].secret.login).toEqual({
      kind: 'browser',
      url: 'https://spa.test/#/login',
      target: 'https://spa.test/#/login',
    });
  });

  it('exits 1 with the file errors when a secret file is invalid', async () => {
    const { code, err } = await cli('secrets', 'match', '-sf', 'invalid.yaml', 'https://a.test/');
    expect(code).toBe(1);
    expect(err).toContain('invalid.yaml:3:5: static[0].domain: unknown key');
  });

  it('exits 1 on a URL that is not http(s) or no -sf', async () => {
    expect(await cli('secrets', 'match', '-sf', 'valid.yaml', 'ftp://a.test/')).toMatchObject({
      code: 1,
      err: 'error: "ftp://a.test/" is not an http or https URL\n',
    });
    expect(await cli('secrets', 'match', 'https://a.test/')).toMatchObject({
      code: 1,
      err: 'error: give at least one secret file with -sf FILE\n',
    });
  });
});

describe('the built keyhole binary', () => {
  const spawn = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, [binary, ...args], { cwd: dir }, (error, stdout, stderr) => {
        done({ code: error === null ? 0 : Number(error.code), stdout, stderr });
      });
    });

  it('validates a file with exit status 0', async () => {
    expect(await spawn('secrets', 'validate', 'valid.yaml')).toEqual({
      code: 0,
      stdout: 'valid.yaml: valid (2 static, 0 dynamic)\n',
      stderr: '',
    });
  });

  it('exits 1 on an invalid file without a stack trace', async () => {
    const { code, stdout, stderr } = await spawn('secrets', 'validate', 'invalid.yaml', 'missing.yaml');
    expect(code).toBe(1);
    expect(stdout).toContain('missing.yaml:1:1: cannot read the secret file: no such file\n');
    expect(`${stdout}${stderr}`).not.toMatch(/\n\s+at /);
  });

  it('matches a URL with -sf', async () => {
    const { code, stdout } = await spawn('secrets', 'match', '-sf', 'valid.yaml', 'https://api.app.test/');
    expect(code).toBe(0);
    expect(stdout).toContain('secret: valid.yaml static[0] (header)');
  });

  it('survives a binary garbage file without a stack trace', async () => {
    await writeFile(join(dir, 'garbage.yaml'), Buffer.from([0xff, 0xfe, 0x00, 0x3a, 0x5b, 0x7b, 0x0a, 0x2d]));
    const { code, stdout, stderr } = await spawn('secrets', 'validate', 'garbage.yaml');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^garbage\.yaml:\d+:\d+: /);
    expect(`${stdout}${stderr}`).not.toMatch(/\n\s+at /);
  });
});
