import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadText } from './testing/fixtures.js';

/** The diagnostics of a file, as printed (`s.yaml:line:col: path: message`). */
async function problems(text: string, name = 's.yaml'): Promise<string[]> {
  return (await loadText(text, { name })).messages;
}

async function valid(text: string): Promise<void> {
  const result = await loadText(text);
  expect(result.messages).toEqual([]);
  expect(result.secrets).toBeDefined();
}

describe('secret file validation', () => {
  it('accepts a file with one entry of every type', async () => {
    await valid(`static:
  - type: basicauth
    domains: [a.test]
    username: alice
    password: "0123"
  - type: bearertoken
    domains: [b.test]
    token: tok
  - type: header
    domains: [c.test]
    headers: [{key: X-API-Key, value: k}]
  - type: query
    domains: [d.test]
    params: [{key: api_key, value: k}]
  - type: cookie
    domains: [e.test]
    cookies: [{key: sid, value: v}, {raw: "jwt=a.b=="}]
`);
  });

  it('reads type names case-insensitively', async () => {
    await valid('static:\n  - type: BasicAuth\n    domains: [a.test]\n    username: u\n    password: p\n');
  });

  it('reports an unknown type with the list of types and a suggestion', async () => {
    expect(await problems('static:\n  - type: bearer\n    domains: [a.test]\n    token: t\n')).toEqual([
      's.yaml:2:11: static[0].type: unknown type "bearer" (did you mean "bearertoken"?); give one of basicauth, bearertoken, header, cookie, query',
    ]);
  });

  it('reports domains and domains-regex together as an error', async () => {
    expect(
      await problems(
        'static:\n  - type: bearertoken\n    domains: [a.test]\n    domains-regex: [".*"]\n    token: t\n',
      ),
    ).toEqual([
      's.yaml:4:5: static[0].domains-regex: domains and domains-regex are mutually exclusive; keep one (split the entry in two if you need both)',
    ]);
  });

  it('requires one of domains or domains-regex', async () => {
    const [message] = await problems('static:\n  - type: bearertoken\n    token: t\n');
    expect(message).toMatch(/^s\.yaml:2:5: static\[0\]: missing domains or domains-regex/);
  });

  it('requires domains to be a non-empty list of non-empty strings', async () => {
    expect(await problems('static:\n  - type: bearertoken\n    domains: []\n    token: t\n')).toEqual([
      's.yaml:3:14: static[0].domains: must not be empty; give a list of host names with at least one item',
    ]);
    expect(
      await problems('static:\n  - type: bearertoken\n    domains: ["a.test", ""]\n    token: t\n'),
    ).toEqual([
      's.yaml:3:25: static[0].domains[1]: must not be empty; give a host name such as app.example.com or app.example.com:8443',
    ]);
    expect(await problems('static:\n  - type: bearertoken\n    domains: a.test\n    token: t\n')).toEqual([
      's.yaml:3:14: static[0].domains: expected a list of host names, found a scalar',
    ]);
  });

  it('refuses a domain written as a URL, with the host to write instead', async () => {
    expect(
      await problems('static:\n  - type: bearertoken\n    domains: ["https://a.test/x"]\n    token: t\n'),
    ).toEqual([
      's.yaml:3:15: static[0].domains[0]: write the host without a scheme: "a.test" instead of "https://a.test/x"',
    ]);
  });

  it('warns when a domain looks like a regular expression', async () => {
    const result = await loadText(
      'static:\n  - type: bearertoken\n    domains: [".*.a.test"]\n    token: t\n',
    );
    expect(result.secrets).toBeDefined();
    expect(result.messages).toEqual([
      's.yaml:3:15: warning: static[0].domains[0]: ".*.a.test" looks like a regular expression, but domains are compared literally; use domains-regex for patterns',
    ]);
  });

  it('checks domains-regex items as RE2 syntax', async () => {
    const [message] = await problems(
      'static:\n  - type: bearertoken\n    domains-regex: ["(?=a)b"]\n    token: t\n',
    );
    expect(message).toMatch(
      /^s\.yaml:3:21: static\[0\]\.domains-regex\[0\]: invalid regular expression "\(\?=a\)b"/,
    );
  });

  it('reports a token on a basicauth entry as an error', async () => {
    expect(
      await problems(
        'static:\n  - type: basicauth\n    domains: [a.test]\n    username: u\n    password: p\n    token: t\n',
      ),
    ).toEqual([
      's.yaml:6:5: static[0].token: "token" is only used with type: bearertoken; this entry is type: basicauth, so remove it (or change the type)',
    ]);
  });

  it('requires a non-empty username and a present password for basicauth, and accepts an empty password', async () => {
    await valid(
      'static:\n  - type: basicauth\n    domains: [a.test]\n    username: apikey\n    password: ""\n',
    );
    expect(await problems('static:\n  - type: basicauth\n    domains: [a.test]\n    username: ""\n')).toEqual(
      [
        's.yaml:2:5: static[0]: missing "password", which type: basicauth needs (password: "…"; it may be empty: password: "")',
      ],
    );
    expect(
      await problems(
        'static:\n  - type: basicauth\n    domains: [a.test]\n    username: ""\n    password: x\n',
      ),
    ).toEqual(['s.yaml:4:15: static[0].username: the username is empty; give a value']);
    expect(
      await problems('static:\n  - type: basicauth\n    domains: [a.test]\n    username: u\n    password:\n'),
    ).toEqual(['s.yaml:5:14: static[0].password: has no value; write password: "" for an empty password']);
  });

  it('requires a token for bearertoken', async () => {
    expect(await problems('static:\n  - type: bearertoken\n    domains: [a.test]\n')).toEqual([
      's.yaml:2:5: static[0]: missing "token", which type: bearertoken needs (token: eyJ…)',
    ]);
  });

  it('requires non-empty headers, each with a non-empty key and value', async () => {
    expect(await problems('static:\n  - type: header\n    domains: [a.test]\n    headers: []\n')).toEqual([
      's.yaml:4:14: static[0].headers: must not be empty; give a list of headers ({key, value}) with at least one item',
    ]);
    expect(
      await problems(
        'static:\n  - type: header\n    domains: [a.test]\n    headers:\n      - key: ""\n        value: v\n',
      ),
    ).toEqual(['s.yaml:5:14: static[0].headers[0].key: the header name is empty; give a value']);
    expect(
      await problems('static:\n  - type: header\n    domains: [a.test]\n    headers:\n      - key: X\n'),
    ).toEqual(['s.yaml:5:9: static[0].headers[0]: missing "value"']);
  });

  it('refuses header values with line breaks, which would inject headers', async () => {
    const [message] = await problems(
      'static:\n  - type: header\n    domains: [a.test]\n    headers:\n      - key: X\n        value: "a\\r\\nEvil: 1"\n',
    );
    expect(message).toMatch(
      /static\[0\]\.headers\[0\]\.value: the header value must not contain line breaks/,
    );
  });

  it('requires non-empty params, each with a non-empty key and value', async () => {
    expect(
      await problems(
        'static:\n  - type: query\n    domains: [a.test]\n    params:\n      - key: k\n        value: ""\n',
      ),
    ).toEqual(['s.yaml:6:16: static[0].params[0].value: the parameter value is empty; give a value']);
  });

  it('requires each cookie to have key and value, or raw, not both', async () => {
    expect(
      await problems(
        'static:\n  - type: cookie\n    domains: [a.test]\n    cookies:\n      - {key: a, value: b, raw: "a=b"}\n',
      ),
    ).toEqual(['s.yaml:5:28: static[0].cookies[0].raw: give either raw or key and value, not both']);
    expect(
      await problems('static:\n  - type: cookie\n    domains: [a.test]\n    cookies:\n      - {key: a}\n'),
    ).toEqual(['s.yaml:5:9: static[0].cookies[0]: missing "value"']);
    expect(await problems('static:\n  - type: cookie\n    domains: [a.test]\n    cookies: []\n')).toEqual([
      's.yaml:4:14: static[0].cookies: must not be empty; give a list of cookies ({key, value} or {raw}) with at least one item',
    ]);
  });

  it('accepts a raw cookie whose value contains "=" and refuses one without "="', async () => {
    await valid(
      'static:\n  - type: cookie\n    domains: [a.test]\n    cookies:\n      - raw: "Set-Cookie: t=YQ==; Path=/"\n',
    );
    const [message] = await problems(
      'static:\n  - type: cookie\n    domains: [a.test]\n    cookies:\n      - raw: garbage\n',
    );
    expect(message).toBe(
      's.yaml:5:14: static[0].cookies[0].raw: invalid raw cookie: expected name=value, found "garbage"',
    );
  });

  it('reports unknown keys with a did-you-mean suggestion', async () => {
    expect(await problems('static:\n  - type: bearertoken\n    domain: [a.test]\n    token: t\n')).toContain(
      's.yaml:3:5: static[0].domain: unknown key "domain" (did you mean "domains"?); expected one of "type", "domains", "domains-regex", "username", "password", "token", "headers", "params", "cookies", "verify"',
    );
  });

  it('reads scalars as their source text', async () => {
    const result = await loadText(
      'static:\n  - type: basicauth\n    domains: [a.test]\n    username: true\n    password: 0123\n',
    );
    expect(result.secrets?.entries[0]).toMatchObject({ credential: { username: 'true', password: '0123' } });
  });

  it('accepts top-level id and info and ignores them', async () => {
    await valid(
      'id: my-secrets\ninfo:\n  name: n\n  author: a\n  severity: info\n  description: d\nstatic:\n  - type: bearertoken\n    domains: [a.test]\n    token: t\n',
    );
  });

  it('reports an empty file and a file with neither static nor dynamic entries', async () => {
    expect(await problems('')).toEqual([
      's.yaml:1:1: the secret file is empty; give static: or dynamic: entries',
    ]);
    expect(await problems('# nothing\n')).toEqual([
      's.yaml:1:1: the secret file is empty; give static: or dynamic: entries',
    ]);
    expect(await problems('id: x\nstatic: []\n')).toEqual([
      's.yaml:1:1: the file has no secrets; give at least one entry under static: or dynamic:',
    ]);
  });

  it('reports every error of a file, not just the first', async () => {
    const messages = await problems(`static:
  - type: nope
    domains: [a.test]
  - type: bearertoken
    token: t
dynamic:
  - variables: []
    type: cookie
    domains: [a.test]
    cookies: [{raw: "{{session}}"}]
`);
    expect(messages.map((m) => m.split(': ')[0])).toEqual(['s.yaml:2:11', 's.yaml:4:5', 's.yaml:7:5']);
  });

  it('parses JSON files with the same rules and positions', async () => {
    const text =
      '{\n  "static": [\n    {"type": "bearertoken", "domains": ["a.test"], "tokn": "t"}\n  ]\n}\n';
    expect((await loadText(text, { name: 's.json' })).messages).toEqual([
      's.json:3:5: static[0]: missing "token", which type: bearertoken needs (token: eyJ…)',
      's.json:3:52: static[0].tokn: unknown key "tokn" (did you mean "token"?); expected one of "type", "domains", "domains-regex", "username", "password", "token", "headers", "params", "cookies", "verify"',
    ]);
  });

  it('refuses files that are not .yaml, .yml or .json', async () => {
    expect(await problems('static: []\n', 's.txt')).toEqual([
      's.txt:1:1: a secret file must end in .yaml, .yml or .json',
    ]);
  });

  it('warns about {{…}} in static entries, which are sent as written', async () => {
    const result = await loadText(
      'static:\n  - type: bearertoken\n    domains: [a.test]\n    token: "{{token}}"\n',
    );
    expect(result.messages).toEqual([
      's.yaml:4:12: warning: static[0].token: static values are sent as written: {{…}} is only filled from a login in dynamic entries',
    ]);
  });
});

describe('dynamic entry validation', () => {
  const dynamic = (body: string) => `dynamic:\n  - template: login.yaml\n${body}`;

  it('accepts a dynamic entry whose placeholders are named extractors of its template', async () => {
    await valid(
      dynamic(
        '    variables:\n      - name: username\n        value: alice\n    type: cookie\n    domains: [a.test]\n    cookies:\n      - raw: "{{session}}"\n',
      ),
    );
  });

  it('requires template', async () => {
    const [message] = await problems(
      'dynamic:\n  - type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n',
    );
    expect(message).toBe(
      's.yaml:2:5: dynamic[0]: missing "template": the login template whose extractors fill this secret (or log in without one: login: {url, username, password} for a form, oauth2: {token-url, …} for OAuth 2.0)',
    );
  });

  it('requires the template to exist, saying where it looked', async () => {
    const result = await loadText(
      'dynamic:\n  - template: nope.yaml\n    type: bearertoken\n    domains: [a.test]\n    token: t\n',
    );
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]).toMatch(
      /^s\.yaml:2:15: dynamic\[0\]\.template: the login template "nope\.yaml" was not found; looked for nope\.yaml \(no templates directory was given\)$/,
    );
  });

  it('finds the template relative to the secret file, then the current directory, then the templates directory', async () => {
    const body = '    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n';
    const beside = await loadText(`dynamic:\n  - template: t/login.yaml\n${body}`, {
      name: 'conf/s.yaml',
      load: ['conf/s.yaml'],
      extra: { 'conf/t/login.yaml': LOGIN },
    });
    expect(beside.messages).toEqual([]);
    const fromCwd = await loadText(`dynamic:\n  - template: login.yaml\n${body}`, {
      name: 'conf/s.yaml',
      load: ['conf/s.yaml'],
    });
    expect(fromCwd.messages).toEqual([]);
    const fromTemplates = await loadText(`dynamic:\n  - template: auth/login.yaml\n${body}`, {
      extra: { 'templates/auth/login.yaml': LOGIN },
      templatesDir: 'templates',
    });
    expect(fromTemplates.messages).toEqual([]);
    expect(fromTemplates.secrets?.logins[0]?.method).toEqual({
      kind: 'template',
      template: `${fromTemplates.dir}/templates/auth/login.yaml`,
    });
  });

  it('names the missing extractor and the ones that exist', async () => {
    expect(
      await problems(dynamic('    type: bearertoken\n    domains: [a.test]\n    token: "{{token}}"\n')),
    ).toEqual([
      's.yaml:5:12: dynamic[0].token: {{token}} is not a named extractor of the login template login.yaml; its named extractors are: session, csrf',
    ]);
  });

  it('reports every problem of every entry when one entry has no login template', async () => {
    const result = await loadText(
      `static:
  - type: bearertoken
    domains: [s.test]
    token: ""
dynamic:
  - template: missing.yaml
    type: bearertoken
    domains: [a.test]
    token: "{{session}}"
  - template: login.yaml
    type: bearertoken
    domains: [b.test]
    token: "{{nope}}"
`,
    );
    expect(result.messages).toEqual([
      's.yaml:4:12: static[0].token: the token is empty; give a value',
      expect.stringMatching(
        /^s\.yaml:6:15: dynamic\[0\]\.template: the login template "missing\.yaml" was not found/,
      ),
      's.yaml:13:12: dynamic[1].token: {{nope}} is not a named extractor of the login template login.yaml; its named extractors are: session, csrf',
    ]);
  });

  it('names a variable the login template needs that neither it nor the entry gives', async () => {
    const strict = LOGIN.replace(/variables:\n {2}username: guest\n {2}password: guest\n/, '');
    const body =
      '    variables: [{name: username, value: alice}]\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n';
    const result = await loadText(`dynamic:\n  - template: strict.yaml\n${body}`, {
      extra: { 'strict.yaml': strict },
    });
    expect(result.messages).toEqual([
      "s.yaml:2:15: dynamic[0].template: the login template strict.yaml uses {{password}} (from line 8), and neither it nor this entry gives it a value; add it to the entry's variables: (- {name: password, value: …})",
    ]);
    const given = await loadText(
      `dynamic:\n  - template: strict.yaml\n${body.replace('[{name: username, value: alice}]', '[{name: username, value: alice}, {name: password, value: pw}]')}`,
      { extra: { 'strict.yaml': strict } },
    );
    expect(given.messages).toEqual([]);
  });

  it('reports errors of a login template that does not parse, with their own positions', async () => {
    const result = await loadText(
      'dynamic:\n  - template: bad.yaml\n    type: bearertoken\n    domains: [a.test]\n    token: t\n',
      {
        extra: { 'bad.yaml': 'id: x\nhttp: [\n' },
      },
    );
    expect(result.messages[0]).toBe(
      's.yaml:2:15: dynamic[0].template: the login template bad.yaml has errors (listed below)',
    );
    expect(result.messages[1]).toMatch(/^bad\.yaml:\d+:\d+: /);
  });

  it('refuses a login template that uses a feature keyhole does not run', async () => {
    const result = await loadText(
      'dynamic:\n  - template: oast.yaml\n    type: bearertoken\n    domains: [a.test]\n    token: t\n',
      {
        extra: {
          'oast.yaml': [
            'id: oast',
            'info: {name: OAST login, author: keyhole, severity: info}',
            'dns:',
            '  - name: "{{FQDN}}"',
            '',
          ].join('\n'),
        },
      },
    );
    expect(result.messages[0]).toBe(
      's.yaml:2:15: dynamic[0].template: the login template oast.yaml has errors (listed below)',
    );
    expect(result.messages[1]).toMatch(
      /^oast\.yaml:3:1: .*unsupported: .*a login template must use only features keyhole runs$/,
    );
  });

  it('accepts variables written with key: as an alias of name:', async () => {
    const result = await loadText(
      dynamic(
        '    variables:\n      - key: username\n        value: alice\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n',
      ),
    );
    expect(result.messages).toEqual([]);
    expect(result.secrets?.logins[0]?.variables).toEqual([{ name: 'username', value: 'alice' }]);
  });

  it('refuses a variable with both name and key', async () => {
    expect(
      await problems(
        dynamic(
          '    variables:\n      - {name: a, key: a, value: x}\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n',
        ),
      ),
    ).toEqual([
      's.yaml:4:19: dynamic[0].variables[0].key: "key" is another spelling of "name"; give one of them, not both',
    ]);
  });

  it('reads $NAME variable values from the environment and reports an unset one', async () => {
    const text = dynamic(
      '    variables:\n      - {name: password, value: $PASS}\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n',
    );
    const set = await loadText(text, { env: { PASS: 's3cret' } });
    expect(set.secrets?.logins[0]?.variables).toEqual([{ name: 'password', value: 's3cret' }]);
    expect((await loadText(text)).messages).toEqual([
      's.yaml:4:33: dynamic[0].variables[0].value: the environment variable PASS is not set; export it before running',
    ]);
  });

  it('accepts a secrets: list and matches each item on its own', async () => {
    const result = await loadText(
      dynamic(
        '    secrets:\n      - type: header\n        domains: [api.test]\n        headers: [{key: X-CSRF, value: "{{csrf}}"}]\n      - type: cookie\n        domains: [www.test]\n        cookies: [{raw: "{{session}}"}]\n',
      ),
    );
    expect(result.messages).toEqual([]);
    expect(result.secrets?.entries.map((e) => e.origin.secret)).toEqual([0, 1]);
    expect(result.secrets?.logins[0]?.placeholders).toEqual(['csrf', 'session']);
  });

  it('requires a dynamic entry to say how its session is used', async () => {
    const [message] = await problems('dynamic:\n  - template: login.yaml\n');
    expect(message).toMatch(
      /^s\.yaml:2:5: dynamic\[0\]: the entry says nothing about how to use the session/,
    );
  });

  it('parses and checks reauth settings with positions', async () => {
    const ok = await loadText(
      dynamic(
        '    reauth:\n      status: [401, 403]\n      logged-out-regex: "(?i)please log in"\n      max: 2\n      every: 15m\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n',
      ),
    );
    expect(ok.messages).toEqual([]);
    expect(ok.secrets?.logins[0]?.reauth).toMatchObject({ status: [401, 403], max: 2, everyMs: 900_000 });
    expect(
      await problems(
        dynamic(
          '    reauth:\n      status: [99]\n      every: soon\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n',
        ),
      ),
    ).toEqual([
      's.yaml:4:16: dynamic[0].reauth.status[0]: must be between 100 and 599, found 99',
      's.yaml:5:14: dynamic[0].reauth.every: invalid duration "soon"; write e.g. 90s, 15m or 1h30m',
    ]);
  });
});

describe('secret references', () => {
  const entry = (token: string) =>
    `static:\n  - type: bearertoken\n    domains: [a.test]\n    token: ${token}\n`;

  it('resolves {env: NAME} and reports an unset variable at the field', async () => {
    const ok = await loadText(entry('{env: TOKEN}'), { env: { TOKEN: 'from-env' } });
    expect(ok.secrets?.entries[0]).toMatchObject({ credential: { token: 'from-env' } });
    expect((await loadText(entry('{env: TOKEN}'))).messages).toEqual([
      's.yaml:4:12: static[0].token: the environment variable TOKEN is not set; export it before running',
    ]);
  });

  it('resolves {file: path} relative to the secret file, dropping one trailing newline', async () => {
    const ok = await loadText(entry('{file: token.txt}'), { extra: { 'token.txt': 'from-file\n' } });
    expect(ok.secrets?.entries[0]).toMatchObject({ credential: { token: 'from-file' } });
  });

  it('reports a missing file', async () => {
    const [message] = (await loadText(entry('{file: missing.txt}'))).messages;
    expect(message).toMatch(
      /^s\.yaml:4:12: static\[0\]\.token: cannot read the file .*missing\.txt: no such file$/,
    );
  });

  describe('{file: …} beyond a regular file of a secret', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'keyhole-references-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    async function fifo(name: string): Promise<string> {
      const path = join(dir, name);
      await promisify(execFile)('mkfifo', [path]);
      return path;
    }

    it('refuses a file over 1 MiB from its size, at the field, with the limit', async () => {
      const big = join(dir, 'big.txt');
      await writeFile(big, '');
      await truncate(big, 100 << 20);
      expect((await loadText(entry(`{file: ${big}}`))).messages).toEqual([
        `s.yaml:4:12: static[0].token: cannot read the file ${big}: it is 100 MiB, over the limit of 1 MiB`,
      ]);
    });

    it('refuses a secret file over 4 MiB from its size, before parsing it', async () => {
      const big = join(dir, 'big.yaml');
      await writeFile(big, 'static:\n');
      await truncate(big, 10 << 20);
      expect((await loadText('', { load: [big] })).messages).toEqual([
        `${big}:1:1: cannot read the secret file: it is 10 MiB, over the limit of 4 MiB`,
      ]);
    });

    it('reports a login template over 4 MiB at the field that names it', async () => {
      const login = join(dir, 'big-login.yaml');
      await writeFile(login, 'id: big-login\n');
      await truncate(login, 5 << 20);
      const messages = (
        await loadText(
          `dynamic:\n  - template: ${login}\n    variables: [{key: username, value: u}]\n    type: bearertoken\n    domains: [a.test]\n    token: "{{session}}"\n`,
        )
      ).messages;
      expect(messages).toEqual([
        `s.yaml:2:15: dynamic[0].template: the login template ${login} has errors (listed below)`,
        `${login}:1:1: it is 5 MiB, over the limit of 4 MiB (the largest nuclei templates are a few hundred KiB)`,
      ]);
    });

    it.runIf(existsSync('/dev/zero'))('stops reading an endless device at the limit', async () => {
      expect((await loadText(entry('{file: /dev/zero}'))).messages).toEqual([
        's.yaml:4:12: static[0].token: cannot read the file /dev/zero: it is larger than 1 MiB, the limit',
      ]);
    });

    it('reads a FIFO its writer fills and closes', async () => {
      const path = await fifo('token.fifo');
      const written = promisify(execFile)(process.execPath, [
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(path)}, 'from-fifo\\n')`,
      ]);
      const loaded = await loadText(entry(`{file: ${path}}`));
      await written;
      expect(loaded.messages).toEqual([]);
      expect(loaded.secrets?.entries[0]).toMatchObject({ credential: { token: 'from-fifo' } });
    });

    it('gives up on a FIFO nobody writes to at the timeout and says so', async () => {
      const path = await fifo('silent.fifo');
      const loaded = await loadText(entry(`{file: ${path}}`), { commandTimeoutMs: 300 });
      expect(loaded.messages).toEqual([
        `s.yaml:4:12: static[0].token: cannot read the file ${path}: nothing finished writing it within 0.3 s`,
      ]);
    });
  });

  it('resolves {cmd: [argv…]} from the output of a real command, without a shell', async () => {
    const ok = await loadText(entry('{cmd: [node, -e, "process.stdout.write(\'from-cmd\\\\n\')"]}'));
    expect(ok.messages).toEqual([]);
    expect(ok.secrets?.entries[0]).toMatchObject({ credential: { token: 'from-cmd' } });
  });

  it('reports a failing command with its exit status and error output', async () => {
    const [message] = (
      await loadText(entry('{cmd: [node, -e, "console.error(\'vault sealed\'); process.exit(3)"]}'))
    ).messages;
    expect(message).toBe(
      's.yaml:4:12: static[0].token: the command "node" failed: it exited with status 3; its error output: vault sealed',
    );
  });

  it('reports a command that does not exist', async () => {
    const [message] = (await loadText(entry('{cmd: [keyhole-no-such-program]}'))).messages;
    expect(message).toBe(
      's.yaml:4:12: static[0].token: the command "keyhole-no-such-program" failed: program not found (is it installed and on PATH?)',
    );
  });

  it('stops a slow command at the timeout and says so', async () => {
    const [message] = (
      await loadText(entry('{cmd: [node, -e, "setTimeout(() => {}, 60000)"]}'), { commandTimeoutMs: 300 })
    ).messages;
    expect(message).toBe(
      's.yaml:4:12: static[0].token: the command "node" failed: did not finish within 0.3 s and was stopped',
    );
  });

  it('refuses a command given as one string, showing the list form', async () => {
    const [message] = (await loadText(entry('{cmd: "op read x"}'))).messages;
    expect(message).toBe(
      's.yaml:4:18: static[0].token.cmd: give the command as a list (no shell is used), e.g. cmd: ["op", "read", "x"]',
    );
  });

  it('refuses a reference object with two kinds', async () => {
    const [message] = (await loadText(entry('{env: A, file: b}'))).messages;
    expect(message).toBe(
      's.yaml:4:12: static[0].token: a reference takes exactly one of env, file, cmd, totp; found env, file',
    );
  });

  it('runs the same command once per run however often it is referenced', async () => {
    let runs = 0;
    const runCommand = async () => {
      runs++;
      return { ok: true as const, stdout: 'x-token' };
    };
    const text = `static:\n  - type: bearertoken\n    domains: [a.test]\n    token: {cmd: [get]}\n  - type: bearertoken\n    domains: [b.test]\n    token: {cmd: [get]}\n`;
    const result = await loadText(text, { runCommand });
    expect(result.messages).toEqual([]);
    expect(runs).toBe(1);
  });
});

describe('file permissions', () => {
  it('warns when a file with literal secrets is readable by others', async () => {
    const { folderWith } = await import('./testing/fixtures.js');
    const { loadSecretFiles } = await import('./load.js');
    const dir = await folderWith(
      { 's.yaml': 'static:\n  - type: bearertoken\n    domains: [a.test]\n    token: t\n' },
      ['s.yaml'],
    );
    const result = await loadSecretFiles(['s.yaml'], { cwd: dir, env: {} });
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'this file holds secrets written in it and other users can read it (mode 0644); run chmod 600 on it, or keep the secrets out of it with {env: …}, {file: …} or {cmd: […]}',
    ]);
    const refs = await folderWith(
      { 's.yaml': 'static:\n  - type: bearertoken\n    domains: [a.test]\n    token: {env: T}\n' },
      ['s.yaml'],
    );
    const clean = await loadSecretFiles(['s.yaml'], { cwd: refs, env: { T: 'x' } });
    expect(clean.diagnostics).toEqual([]);
  });
});

const LOGIN = (await import('./testing/fixtures.js')).LOGIN_TEMPLATE;
