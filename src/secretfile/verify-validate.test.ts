import { describe, expect, it } from 'vitest';
import { loadText } from './testing/fixtures.js';

describe('verify: on a static entry', () => {
  it('is read with its defaults: status [200] unless a regex is given, every as a duration', async () => {
    const loaded = await loadText(`static:
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify: {url: "https://api.test/v1/me"}
  - type: cookie
    domains-regex: ['(.*\\.)?app\\.test']
    cookies: [{key: sid, value: s1}]
    verify: {url: "https://www.app.test/account?tab=1", regex: Sign out, every: 15m}
  - type: query
    domains: ["api.test:8443"]
    params: [{key: k, value: v}]
    verify: {url: "http://api.test:8443/ping", status: [200, 204], regex: pong}
  - type: bearertoken
    domains: [plain.test]
    token: t2
`);
    expect(loaded.messages).toEqual([]);
    const verifies = loaded.secrets?.entries.map((e) => (e.kind === 'static' ? e.verify : undefined));
    expect(
      verifies?.map((v) => v && { url: v.url, status: v.status, regex: v.regex?.source, every: v.everyMs }),
    ).toEqual([
      { url: 'https://api.test/v1/me', status: [200], regex: undefined, every: undefined },
      { url: 'https://www.app.test/account?tab=1', status: [], regex: 'Sign out', every: 900_000 },
      { url: 'http://api.test:8443/ping', status: [200, 204], regex: 'pong', every: undefined },
      undefined,
    ]);
  });

  it("refuses a URL outside the entry's scope, at the URL, whatever the scope's kind", async () => {
    const loaded = await loadText(`static:
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify: {url: "https://evil.test/me"}
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify:
      url: https://api.test:8443/me
  - type: cookie
    domains-regex: ['(.*\\.)?app\\.test']
    cookies: [{key: sid, value: s1}]
    verify: {url: "https://app.test.evil.test/"}
`);
    const why =
      'the check is sent with the secret, so it may only go where the secret goes; give a URL on a host the entry applies to';
    expect(loaded.messages).toEqual([
      `s.yaml:5:19: static[0].verify.url: evil.test is outside the scope of this entry (api.test): ${why}`,
      `s.yaml:10:12: static[1].verify.url: api.test:8443 is outside the scope of this entry (api.test): ${why}`,
      `s.yaml:14:19: static[2].verify.url: app.test.evil.test is outside the scope of this entry (/(.*\\.)?app\\.test/): ${why}`,
    ]);
    expect(loaded.secrets).toBeUndefined();
  });

  it('says where a check is written wrong', async () => {
    const loaded = await loadText(`static:
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify: {status: 200}
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify: {url: api.test/me}
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify: {url: "https://api.test/", status: 99, regex: "(?<=a)b", every: soon, on: 401}
  - type: bearertoken
    domains: [api.test]
    token: t1
    verify: https://api.test/me
`);
    expect(loaded.messages).toEqual([
      's.yaml:5:13: static[0].verify: missing "url": a page only a logged-in user sees, e.g. url: https://app.example.com/account',
      's.yaml:9:19: static[1].verify.url: "api.test/me" is not a URL; give it with its scheme, e.g. https://app.example.com/login',
      's.yaml:13:48: static[2].verify.status: must be between 100 and 599, found 99',
      's.yaml:13:59: static[2].verify.regex: invalid regular expression "(?<=a)b": invalid named capture: `(?<=a)b` (RE2 syntax: no lookaround or backreferences)',
      's.yaml:13:77: static[2].verify.every: invalid duration "soon"; write at least 1s, e.g. 30s, 5m or 1h',
      's.yaml:13:83: static[2].verify.on: unknown key "on"; expected one of "url", "status", "regex", "every"',
      's.yaml:17:13: static[3].verify: expected a mapping of url, status, regex, every, found a scalar',
    ]);
  });

  it("is not a field of the items of a dynamic entry's secrets: list", async () => {
    const loaded = await loadText(`dynamic:
  - template: login.yaml
    secrets:
      - type: cookie
        domains: [app.test]
        cookies: [{raw: "{{session}}"}]
        verify: {url: "https://app.test/me"}
`);
    expect(loaded.messages).toEqual([
      expect.stringMatching(/^s\.yaml:7:9: dynamic\[0\]\.secrets\[0\]\.verify: unknown key "verify"/),
    ]);
  });
});

describe('verify: on a dynamic entry', () => {
  it("refuses a URL outside the scope of every one of the entry's secrets when the file is read", async () => {
    const loaded = await loadText(`dynamic:
  - template: login.yaml
    verify: {url: "https://idp.test/me"}
    secrets:
      - type: cookie
        domains: [app.test]
        cookies: [{raw: "{{session}}"}]
      - type: bearertoken
        domains: [api.test]
        token: "{{session}}"
  - template: login.yaml
    verify: {url: "https://api.test/me"}
    secrets:
      - type: cookie
        domains: [app.test]
        cookies: [{raw: "{{session}}"}]
      - type: bearertoken
        domains: [api.test]
        token: "{{session}}"
`);
    expect(loaded.messages).toEqual([
      "s.yaml:3:19: dynamic[0].verify.url: idp.test is outside the scope of the entry's secrets (app.test; api.test): the check is sent with the secret, so it may only go where the secret goes; give a URL on a host the entry applies to",
    ]);
  });
});
