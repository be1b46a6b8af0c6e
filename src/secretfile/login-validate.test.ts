import { describe, expect, it } from 'vitest';
import { loadSecretFiles } from './load.js';
import { folderWith, loadText } from './testing/fixtures.js';

const scoped = `    type: cookie
    domains: [app.test]
`;

describe('login: and oauth2: entries', () => {
  it('accept a form login, a JSON login and each OAuth 2.0 grant, with a session check', async () => {
    const loaded = await loadText(
      `dynamic:
  - login:
      url: https://app.test/login
      username: alice
      password: {env: PW}
      totp: {totp: {env: OTP}}
      form: signin
      fields: {username: log, password: pwd, totp: code}
      success: {status: [200], regex: Dashboard, url: /home, cookie: sid}
    verify: {url: https://app.test/account, regex: Sign out, every: 5m}
${scoped}  - login:
      url: https://app.test/api/login
      username: alice
      password: {env: PW}
      json: {body: '{"u": "{{username}}", "p": "{{password}}"}', token: data.token}
    type: bearertoken
    token: "{{token}}"
    domains: [api.app.test]
  - oauth2: {token-url: https://idp.test/token, grant: client_credentials, client-id: s, client-secret: {env: CS}}
    type: bearertoken
    domains: [api.test]
  - oauth2: {token-url: https://idp.test/token, grant: password, client-id: s, username: a, password: {env: PW}, auth-method: body}
    type: bearertoken
    domains: [api2.test]
  - oauth2: {token-url: https://idp.test/token, grant: refresh_token, client-id: s, refresh-token: {env: RT}}
    type: bearertoken
    domains: [api3.test]
`,
      { env: { PW: 'pw', OTP: 'GEZDGNBV', CS: 'cs', RT: 'rt' } },
    );
    expect(loaded.messages).toEqual([]);
    const kinds = loaded.secrets?.logins.map((l) => l.method.kind);
    expect(kinds).toEqual(['form', 'form', 'oauth2', 'oauth2', 'oauth2']);
    expect(loaded.secrets?.logins[0]?.verify?.everyMs).toBe(300_000);
    expect(loaded.secrets?.logins[2]?.reauth?.status).toEqual([401]);
    expect(loaded.secrets?.entries[2]?.kind === 'dynamic' && loaded.secrets.entries[2].spec).toEqual({
      type: 'bearertoken',
      token: '{{access_token}}',
    });
  });

  it('mask the user and secrets of a login in output, never its URLs or client id', async () => {
    const loaded = await loadText(
      `dynamic:
  - login: {url: https://app.test/login, username: alice-user, password: {env: PW}}
${scoped}  - oauth2: {token-url: https://idp.test/token, grant: password, client-id: scanner-id, username: bob-user, password: {env: PW2}, client-secret: {env: CS}}
    type: bearertoken
    domains: [api.test]
`,
      { env: { PW: 'form-password', PW2: 'grant-password', CS: 'client-secret-value' } },
    );
    const redact = (text: string) => loaded.redactor.redact(text);
    for (const secret of ['alice-user', 'form-password', 'bob-user', 'grant-password', 'client-secret-value'])
      expect(redact(`seen ${secret} here`)).toBe('seen [REDACTED] here');
    for (const plain of ['https://app.test/login', 'https://idp.test/token', 'scanner-id'])
      expect(redact(`at ${plain}`)).toBe(`at ${plain}`);
  });

  it('say where a login is written wrong, and how to fix it', async () => {
    const loaded = await loadText(`dynamic:
  - template: login.yaml
    login: {url: https://app.test/login, username: a, password: b}
${scoped}  - login: {url: app.test/login, username: a, password: b, browser: yes}
${scoped}  - login: {username: a, password: b, fields: {user: x}}
${scoped}  - oauth2: {token-url: http://idp.test/token, grant: password, client-id: s, refresh-token: r}
    type: bearertoken
    domains: [api.test]
  - oauth2: {token-url: https://idp.test/token, grant: implicit, client-id: s}
    verify: {status: 200}
    type: bearertoken
    domains: [api.test]
`);
    expect(loaded.messages).toEqual([
      's.yaml:3:5: dynamic[0].login: an entry logs in one way: give one of template, login, oauth2, not template and login',
      's.yaml:6:18: dynamic[1].login.url: "app.test/login" is not a URL; give it with its scheme, e.g. https://app.example.com/login',
      's.yaml:6:69: dynamic[1].login.browser: expected true or false, found "yes"',
      's.yaml:9:12: dynamic[2].login: missing "url" (url: https://app.example.com/login, the page with the login form)',
      's.yaml:9:48: dynamic[2].login.fields.user: unknown key "user"; expected one of "username", "password", "totp"',
      's.yaml:12:13: dynamic[3].oauth2: missing "username" (grant: password needs username: alice)',
      's.yaml:12:13: dynamic[3].oauth2: missing "password" (grant: password needs password: {env: PASSWORD})',
      's.yaml:12:25: dynamic[3].oauth2.token-url: the client secret would cross the network in clear text: give an https token URL (http is only for this machine: 127.0.0.1, ::1, localhost)',
      's.yaml:12:79: dynamic[3].oauth2.refresh-token: "refresh-token" is not used by grant: password; remove it (or change the grant)',
      's.yaml:15:56: dynamic[4].oauth2.grant: unknown grant "implicit"; give one of client_credentials, password, refresh_token',
      's.yaml:16:13: dynamic[4].verify: missing "url": a page only a logged-in user sees, e.g. url: https://app.example.com/account',
    ]);
  });

  it('accept a browser login with the hosts it may go to, and fill its secret from cookies and storage', async () => {
    const loaded = await loadText(
      `dynamic:
  - login:
      url: https://app.test/login
      browser: true
      username: alice
      password: {env: PW}
      totp: {totp: {env: OTP}}
      allow: [sso.idp.test, "idp.test:8443"]
    type: header
    headers: [{key: Authorization, value: "Bearer {{local.access_token}}"}, {key: X-Tab, value: "{{session.tab}}"}, {key: X-Sid, value: "{{cookie.sid}}"}]
    domains: [app.test]
`,
      { env: { PW: 'pw', OTP: 'GEZDGNBV' } },
    );
    expect(loaded.messages).toEqual([]);
    const method = loaded.secrets?.logins[0]?.method;
    expect(method?.kind).toBe('browser');
    expect(method?.kind === 'browser' && method.browser.allow).toEqual([
      { host: 'sso.idp.test', port: undefined },
      { host: 'idp.test', port: 8443 },
    ]);
  });

  it('say where a browser login is written wrong', async () => {
    const loaded = await loadText(`dynamic:
  - login: {url: https://app.test/, browser: true, username: a, password: b, json: {body: "{}"}}
${scoped}  - login: {url: https://app.test/, username: a, password: b, allow: [idp.test]}
${scoped}  - login: {url: https://app.test/, browser: true, username: a, password: b, allow: ["https://idp.test/x"]}
${scoped}`);
    expect(loaded.messages).toEqual([
      's.yaml:2:78: dynamic[0].login.json: json: posts to a login API without a browser; remove it (a browser login fills the page) or remove browser: true',
      's.yaml:5:63: dynamic[1].login.allow: allow: names the hosts a browser login may go to (an identity provider); it needs browser: true',
      's.yaml:8:86: dynamic[2].login.allow[0]: write the host without a scheme: "idp.test" instead of "https://idp.test/x"',
    ]);
    const placeholders = await loadText(`dynamic:
  - login: {url: https://app.test/, browser: true, username: a, password: b}
    type: bearertoken
    token: "{{access_token}}"
    domains: [api.test]
`);
    expect(placeholders.messages).toEqual([
      's.yaml:4:12: dynamic[0].token: {{access_token}} is not filled by a browser login; it gives {{local.NAME}} (localStorage), {{session.NAME}} (sessionStorage) and {{cookie.NAME}}',
    ]);
  });

  it('check a login URL given by a reference once it is resolved, as one written in the file', async () => {
    const loaded = await loadText(
      `dynamic:
  - login: {url: {env: LOGIN_URL}, username: a, password: b}
${scoped}  - oauth2: {token-url: {env: TOKEN_URL}, grant: client_credentials, client-id: s, client-secret: c}
    type: bearertoken
    domains: [api.test]
  - login: {url: {env: GOOD_URL}, browser: true, username: a, password: b}
    type: cookie
    domains: [good.test]
`,
      {
        env: {
          LOGIN_URL: 'app.test/login',
          TOKEN_URL: 'http://idp.test/token',
          GOOD_URL: 'http://127.0.0.1:8080/',
        },
      },
    );
    expect(loaded.messages).toEqual([
      's.yaml:2:18: dynamic[0].login.url: the environment variable LOGIN_URL gives "app.test/login": "app.test/login" is not a URL; give it with its scheme, e.g. https://app.example.com/login',
      's.yaml:5:25: dynamic[1].oauth2.token-url: the environment variable TOKEN_URL gives "http://idp.test/token": the client secret would cross the network in clear text: give an https token URL (http is only for this machine: 127.0.0.1, ::1, localhost)',
    ]);
    expect(loaded.secrets).toBeUndefined();
  });

  it('warn when a file other users can read writes a login password or client secret in it', async () => {
    const dir = await folderWith(
      {
        's.yaml': `dynamic:
  - oauth2: {token-url: https://idp.test/token, grant: client_credentials, client-id: s, client-secret: literal-secret}
    type: bearertoken
    domains: [api.test]
`,
      },
      ['s.yaml'],
    );
    const loaded = await loadSecretFiles(['s.yaml'], { cwd: dir, env: {} });
    expect(loaded.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^this file holds secrets written in it and other users can read it \(mode 0644\)/,
      ),
    ]);
  });
});
