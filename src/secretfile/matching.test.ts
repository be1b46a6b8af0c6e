import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GoRegex } from '../regex/index.js';
import { domainItemMatches, type MatchKey, matchKey, normaliseHost, parseDomainItem } from './host.js';
import { SecretIndex } from './lookup.js';
import type { ScopedSecret } from './model.js';
import { SecretResolver } from './resolver.js';
import { loadText } from './testing/fixtures.js';

/** Loads a file and returns a function telling which entry (label) applies to a URL. */
async function chooser(text: string): Promise<(url: string) => string | undefined> {
  const loaded = await loadText(text);
  expect(loaded.messages.filter((m) => !m.includes('warning'))).toEqual([]);
  const resolver = new SecretResolver(loaded.secrets ?? { entries: [], logins: [] });
  return (url) => {
    const u = new URL(url);
    const scheme = u.protocol === 'https:' ? 'https' : 'http';
    const port = u.port === '' ? (scheme === 'https' ? 443 : 80) : Number(u.port);
    const entry = resolver.choose({ scheme, hostname: u.hostname, port });
    return entry === undefined ? undefined : `${entry.origin.section}[${entry.origin.index}]`;
  };
}

const token = (scope: string) => `  - type: bearertoken\n    ${scope}\n    token: t\n`;

describe('host normalisation', () => {
  it('lower-cases, drops a trailing dot and writes IDN as punycode', () => {
    expect(normaliseHost('App.Test.')).toBe('app.test');
    expect(normaliseHost('Bücher.example')).toBe('xn--bcher-kva.example');
  });

  it('writes IPv6 addresses in canonical bracketed form, with or without brackets', () => {
    expect(normaliseHost('0:0:0:0:0:0:0:1')).toBe('[::1]');
    expect(normaliseHost('[::1]')).toBe('[::1]');
  });

  it('keeps the port unless it is the scheme default', () => {
    expect(matchKey('https', 'a.test', 443).text).toBe('a.test');
    expect(matchKey('http', 'a.test', 80).text).toBe('a.test');
    expect(matchKey('http', 'a.test', 443).text).toBe('a.test:443');
    expect(matchKey('https', 'a.test', 8443).text).toBe('a.test:8443');
    expect(matchKey('http', '::1', 8080).text).toBe('[::1]:8080');
  });
});

describe('secret matching (docs/secret-file.md#matching)', () => {
  it('sends a secret only to hosts of its domains', async () => {
    const choose = await chooser(`static:\n${token('domains: [app.test]')}`);
    expect(choose('https://app.test/x')).toBe('static[0]');
    expect(choose('https://other.test/x')).toBeUndefined();
    expect(choose('https://sub.app.test/x')).toBeUndefined();
  });

  it('matches domains case-insensitively, with a trailing dot and as IDN', async () => {
    const choose = await chooser(`static:\n${token('domains: [App.Test, "bücher.example"]')}`);
    expect(choose('https://APP.test./')).toBe('static[0]');
    expect(choose('https://xn--bcher-kva.example/')).toBe('static[0]');
  });

  it('does not match a domain without a port on a non-default port', async () => {
    const choose = await chooser(
      `static:\n${token('domains: [app.test]')}${token('domains: ["app.test:8443"]')}`,
    );
    expect(choose('https://app.test/')).toBe('static[0]');
    expect(choose('http://app.test/')).toBe('static[0]');
    expect(choose('https://app.test:8443/')).toBe('static[1]');
    expect(choose('http://app.test:443/')).toBeUndefined();
  });

  it('reads a domain with an explicit default port as that port, whatever the scheme', async () => {
    const choose = await chooser(`static:\n${token('domains: ["app.test:443"]')}`);
    expect(choose('https://app.test/')).toBe('static[0]');
    expect(choose('http://app.test:443/')).toBe('static[0]');
    expect(choose('http://app.test/')).toBeUndefined();
  });

  it('matches IPv6 domains written with or without brackets', async () => {
    const choose = await chooser(`static:\n${token('domains: ["::1"]')}${token('domains: ["[::1]:8080"]')}`);
    expect(choose('http://[::1]/')).toBe('static[0]');
    expect(choose('http://[0::1]:8080/')).toBe('static[1]');
  });

  it('matches domains-regex against the whole host, case-insensitively', async () => {
    const choose = await chooser(`static:\n${token('domains-regex: ["api\\\\.example\\\\.com"]')}`);
    expect(choose('https://API.example.com/')).toBe('static[0]');
    expect(choose('https://api.example.com.evil.test/')).toBeUndefined();
    expect(choose('https://xapi.example.com/')).toBeUndefined();
  });

  it('matches regexes against host:port when the port is not the default', async () => {
    const choose = await chooser(`static:\n${token('domains-regex: ["app\\\\.test:8\\\\d+"]')}`);
    expect(choose('https://app.test:8443/')).toBe('static[0]');
    expect(choose('https://app.test/')).toBeUndefined();
  });

  it('.* matches every host', async () => {
    const choose = await chooser(`static:\n${token('domains-regex: [".*"]')}`);
    for (const url of [
      'https://a.test/',
      'http://127.0.0.1:9000/',
      'http://[::1]/',
      'https://xn--bcher-kva.example/',
    ]) {
      expect(choose(url)).toBe('static[0]');
    }
  });

  it('uses the first of several domain matches', async () => {
    const choose = await chooser(
      `static:\n${token('domains: [a.test]')}${token('domains: [b.test, a.test]')}`,
    );
    expect(choose('https://a.test/')).toBe('static[0]');
    expect(choose('https://b.test/')).toBe('static[1]');
  });

  it('uses the first of several regex matches', async () => {
    const choose = await chooser(
      `static:\n${token('domains-regex: [".*\\\\.test"]')}${token('domains-regex: [".*"]')}`,
    );
    expect(choose('https://a.test/')).toBe('static[0]');
    expect(choose('https://a.example/')).toBe('static[1]');
  });

  it('a domains match beats a regex match that comes earlier in the file', async () => {
    const choose = await chooser(`static:\n${token('domains-regex: [".*"]')}${token('domains: [a.test]')}`);
    expect(choose('https://a.test/')).toBe('static[1]');
    expect(choose('https://b.test/')).toBe('static[0]');
  });

  it('orders several files as one list: a.static, a.dynamic, b.static, b.dynamic', async () => {
    const a = `static:\n${token('domains: [s.test]')}dynamic:\n  - template: login.yaml\n    type: bearertoken\n    domains: [d.test, both.test]\n    token: "{{session}}"\n`;
    const b = `static:\n${token('domains: [d.test, both.test, b.test]')}`;
    const loaded = await loadText(a, { extra: { 'b.yaml': b }, load: ['s.yaml', 'b.yaml'] });
    expect(loaded.messages).toEqual([]);
    const index = new SecretIndex(loaded.secrets?.entries ?? []);
    const label = (host: string) => {
      const e = index.lookup(matchKey('https', host, 443));
      return e && `${e.origin.file} ${e.origin.section}[${e.origin.index}]`;
    };
    expect([label('s.test'), label('d.test'), label('both.test'), label('b.test')]).toEqual([
      's.yaml static[0]',
      's.yaml dynamic[0]',
      's.yaml dynamic[0]',
      'b.yaml static[0]',
    ]);
  });

  it('gives no secret when nothing matches', async () => {
    const choose = await chooser(
      `static:\n${token('domains: [a.test]')}${token('domains-regex: ["b\\\\.test"]')}`,
    );
    expect(choose('https://c.test/')).toBeUndefined();
  });
});

// --- properties ------------------------------------------------------------------------------------

const HOSTS = ['a.test', 'b.test', 'api.a.test', 'x.example', '127.0.0.1', '[::1]'];
const SCHEMES = ['http', 'https'] as const;

const arbitraryKey = fc
  .record({
    host: fc.constantFrom(...HOSTS),
    scheme: fc.constantFrom(...SCHEMES),
    port: fc.constantFrom(80, 443, 8080),
  })
  .map(({ host, scheme, port }) => matchKey(scheme, host, port));

const arbitraryDomainItem = fc
  .record({ host: fc.constantFrom(...HOSTS), port: fc.constantFrom(undefined, 80, 443, 8080) })
  .map(({ host, port }) => (port === undefined ? host : `${host}:${port}`));

const arbitraryPattern = fc.constantFrom(
  '.*',
  '.*\\.test',
  'a\\.test(:\\d+)?',
  '\\[::1\\].*',
  '127\\..*',
  'nothing',
);

const arbitraryEntries = fc.array(
  fc.oneof(
    fc.array(arbitraryDomainItem, { minLength: 1, maxLength: 3 }).map((d) => ({ domains: d })),
    fc.array(arbitraryPattern, { minLength: 1, maxLength: 2 }).map((r) => ({ regexes: r })),
  ),
  { maxLength: 8 },
);

function entriesOf(specs: readonly ({ domains: string[] } | { regexes: string[] })[]): ScopedSecret[] {
  return specs.map((spec, index): ScopedSecret => {
    const origin = { file: 's.yaml', section: 'static' as const, index, pos: { line: 1, col: 1, offset: 0 } };
    const credential = { type: 'bearertoken' as const, token: `t${index}` };
    if ('domains' in spec) {
      const domains = spec.domains.map((d) => {
        const parsed = parseDomainItem(d);
        if (!parsed.ok) throw new Error(parsed.reason);
        return parsed.item;
      });
      return { kind: 'static', origin, scope: { kind: 'domains', domains }, credential };
    }
    const patterns = spec.regexes.map((r) => GoRegex.compileWhole(r, { caseInsensitive: true }) as GoRegex);
    return { kind: 'static', origin, scope: { kind: 'domains-regex', patterns }, credential };
  });
}

function matchesDomains(entry: ScopedSecret, key: MatchKey): boolean {
  return entry.scope.kind === 'domains' && entry.scope.domains.some((d) => domainItemMatches(d, key));
}

function matchesRegex(entry: ScopedSecret, key: MatchKey): boolean {
  return entry.scope.kind === 'domains-regex' && entry.scope.patterns.some((p) => p.test(key.text));
}

describe('secret matching properties', () => {
  it('the chosen entry matches the host, no earlier entry does by the same kind, and no domain match is passed over for a regex match', () => {
    fc.assert(
      fc.property(
        arbitraryEntries,
        fc.array(arbitraryKey, { minLength: 1, maxLength: 10 }),
        (specs, keys) => {
          const entries = entriesOf(specs);
          const index = new SecretIndex(entries);
          for (const key of keys) {
            const chosen = index.lookup(key);
            const firstDomain = entries.findIndex((e) => matchesDomains(e, key));
            const firstRegex = entries.findIndex((e) => matchesRegex(e, key));
            if (chosen === undefined) {
              expect([firstDomain, firstRegex]).toEqual([-1, -1]);
              continue;
            }
            const at = entries.indexOf(chosen);
            if (firstDomain >= 0) expect(at).toBe(firstDomain);
            else {
              expect(matchesRegex(chosen, key)).toBe(true);
              expect(at).toBe(firstRegex);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a secret is never applied to a request whose host it does not match', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryEntries, arbitraryKey, async (specs, key) => {
        const entries = entriesOf(specs);
        const resolver = new SecretResolver({ entries, logins: [] });
        const hostname = key.host.startsWith('[') ? key.host.slice(1, -1) : key.host;
        const scheme = key.defaultPort ? (key.port === 443 ? 'https' : 'http') : 'http';
        const request = {
          method: 'GET',
          scheme,
          hostname,
          port: key.port,
          target: '/',
          headers: [],
          body: '',
        } as const;
        const applied = await resolver.apply(request);
        if (applied.kind === 'applied') {
          const requestKey = matchKey(scheme, hostname, key.port);
          expect(matchesDomains(applied.entry, requestKey) || matchesRegex(applied.entry, requestKey)).toBe(
            true,
          );
          const token =
            applied.entry.kind === 'static' && applied.entry.credential.type === 'bearertoken'
              ? applied.entry.credential.token
              : '';
          expect(applied.request.headers).toEqual([['Authorization', `Bearer ${token}`]]);
        } else {
          expect(applied.kind).toBe('none');
          expect(
            entries.some(
              (e) =>
                matchesDomains(e, matchKey(scheme, hostname, key.port)) ||
                matchesRegex(e, matchKey(scheme, hostname, key.port)),
            ),
          ).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
