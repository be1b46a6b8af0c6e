import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from '../exit.js';
import { parseHeader, parseVariable, sendingOverrides } from './request-config.js';
import type { RunFlags } from './request-options.js';

describe('request flags', () => {
  it('take -H "Name: value" with the value trimmed and colons kept', () => {
    expect(parseHeader('X-Forwarded-For:  10.0.0.1')).toEqual(['X-Forwarded-For', '10.0.0.1']);
    expect(parseHeader('Referer: https://a.test:8443/x')).toEqual(['Referer', 'https://a.test:8443/x']);
  });

  it('take -var name=value, the value as is (may hold =)', () => {
    expect(parseVariable('token=a=b')).toEqual(['token', 'a=b']);
    expect(parseVariable('empty=')).toEqual(['empty', '']);
  });

  it('turn any -H text into a header that cannot inject a line, or a UserError', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        try {
          const [name, value] = parseHeader(text);
          expect(name).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
          expect(value).not.toMatch(/[\r\n\0]/);
        } catch (error) {
          expect(error).toBeInstanceOf(UserError);
        }
      }),
    );
  });
});

describe("nuclei's flags that change what is sent", () => {
  it('read -fr, -fhr with -mr, -dr, -sni, -at, -rsr and -spm', () => {
    expect(sendingOverrides({})).toEqual({});
    expect(sendingOverrides({ followRedirects: true })).toEqual({ redirects: { follow: 'all' } });
    expect(sendingOverrides({ followHostRedirects: true, maxRedirects: '3' })).toEqual({
      redirects: { follow: 'same-host', max: 3 },
    });
    expect(sendingOverrides({ disableRedirects: true })).toEqual({ redirects: { follow: 'none' } });
    expect(
      sendingOverrides({
        sni: 'test',
        attackType: 'ClusterBomb',
        responseSizeRead: '4096',
        stopAtFirstMatch: true,
      }),
    ).toEqual({ tlsServerName: 'test', attack: 'clusterbomb', maxBodyBytes: 4096, stopAtFirstMatch: true });
  });

  it.each<[RunFlags, string]>([
    [
      { disableRedirects: true, followRedirects: true },
      '-dr (follow no redirect) and -fr (follow them) contradict each other; leave one out',
    ],
    [
      { maxRedirects: '3' },
      "-mr/-max-redirects applies with -fr or -fhr; a template's own redirects use its max-redirects",
    ],
    [
      { followRedirects: true, maxRedirects: '50' },
      '-mr/-max-redirects takes a whole number from 1 to 20, got "50"',
    ],
    [{ attackType: 'sniper' }, '-at/-attack-type takes batteringram, pitchfork, clusterbomb, got "sniper"'],
    [{ sni: 'https://x' }, '-sni takes a host name such as app.example.com, got "https://x"'],
    [{ responseSizeRead: 'lots' }, '-rsr/-response-size-read takes a whole number 0 or more, got "lots"'],
  ])('refuse %o, naming the flag', (flags, message) => {
    expect(() => sendingOverrides(flags)).toThrow(new UserError(message));
  });
});
