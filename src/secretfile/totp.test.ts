import { describe, expect, it } from 'vitest';
import { loadText } from './testing/fixtures.js';
import { decodeBase32, hotp, OneTimeCode, type TotpAlgorithm, totp } from './totp.js';

const ascii = (text: string) => Buffer.from(text, 'ascii');
/** RFC 6238 appendix B: the seed of each algorithm is "1234567890" repeated to its key length. */
const RFC_KEYS: Record<TotpAlgorithm, Uint8Array> = {
  sha1: ascii('12345678901234567890'),
  sha256: ascii('12345678901234567890123456789012'),
  sha512: ascii('1234567890123456789012345678901234567890123456789012345678901234'),
};
const RFC_VECTORS: readonly [seconds: number, sha1: string, sha256: string, sha512: string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

/** A clock that only moves when told to, or when a code waits for the next period. */
function manualClock(startMs: number) {
  let now = startMs;
  const slept: number[] = [];
  return {
    slept,
    advance: (ms: number) => {
      now += ms;
    },
    clock: {
      now: () => now,
      sleep: async (ms: number) => {
        slept.push(ms);
        now += ms;
      },
    },
  };
}

describe('TOTP codes', () => {
  it('give the test vectors of RFC 6238 for SHA-1, SHA-256 and SHA-512', () => {
    for (const [seconds, ...expected] of RFC_VECTORS) {
      const got = (['sha1', 'sha256', 'sha512'] as const).map((algorithm) =>
        totp(RFC_KEYS[algorithm], seconds * 1000, { digits: 8, periodSeconds: 30, algorithm }),
      );
      expect(got).toEqual(expected);
    }
  });

  it('give the HOTP values of RFC 4226 appendix D', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, counter) => hotp(RFC_KEYS.sha1, counter, 6, 'sha1'))).toEqual(expected);
  });

  it('read base32 secrets in any case, with spaces, dashes and padding', () => {
    const key = ascii('12345678901234567890');
    expect(decodeBase32('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')).toEqual(Uint8Array.from(key));
    expect(decodeBase32('gezd gnbv gy3t qojq-gezd gnbv gy3t qojq')).toEqual(Uint8Array.from(key));
    expect(decodeBase32('MZXW6===')).toEqual(Uint8Array.from(ascii('foo')));
    expect(decodeBase32('GEZ1')).toEqual({
      problem: 'the TOTP secret is not base32: it holds "1"; base32 uses A-Z and 2-7 only',
    });
  });

  it('are never given twice within a period: a second login waits for the next period', async () => {
    // 4 s into a period: the second code waits the 26 s left of it.
    const time = manualClock(364_000);
    const codes = new OneTimeCode(
      RFC_KEYS.sha1,
      { digits: 8, periodSeconds: 30, algorithm: 'sha1' },
      time.clock,
    );
    const first = await codes.next();
    const second = await codes.next();
    expect(second).not.toBe(first);
    expect(time.slept).toEqual([26_000]);
    time.advance(31_000);
    const third = await codes.next();
    expect(time.slept).toEqual([26_000]);
    expect(new Set([first, second, third]).size).toBe(3);
  });

  it('are given one at a time to logins asking together, each a different period', async () => {
    const time = manualClock(1_000_000_000_000);
    const codes = new OneTimeCode(
      RFC_KEYS.sha1,
      { digits: 6, periodSeconds: 30, algorithm: 'sha1' },
      time.clock,
    );
    const all = await Promise.all([codes.next(), codes.next(), codes.next()]);
    expect(new Set(all).size).toBe(3);
    expect(time.slept).toHaveLength(2);
  });
});

describe('{totp: …} in a secret file', () => {
  const entry = (value: string) => `dynamic:
  - template: login.yaml
    variables:
      - name: password
        value: ${value}
    type: cookie
    domains: [a.test]
    cookies: [{raw: "{{session}}"}]
`;

  it('is a login value made from a base32 secret, given literally or by reference', async () => {
    const loaded = await loadText(entry('{totp: {env: OTP}, digits: 8, period: 30s, algorithm: SHA256}'), {
      env: { OTP: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA' },
    });
    expect(loaded.messages).toEqual([]);
    const value = loaded.secrets?.logins[0]?.variables[0]?.value;
    expect(value).toBeInstanceOf(OneTimeCode);
    if (value instanceof OneTimeCode)
      expect(value.options).toEqual({ digits: 8, periodSeconds: 30, algorithm: 'sha256' });
    expect(loaded.redactor.redact('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA')).toBe('[REDACTED]');
  });

  it('says where a secret is not base32, an option is out of range, or an algorithm unknown', async () => {
    const loaded = await loadText(
      `dynamic:
  - template: login.yaml
    variables:
      - {name: a, value: {totp: "not base32!"}}
      - {name: b, value: {totp: GEZDGNBV, digits: 4}}
      - {name: c, value: {totp: GEZDGNBV, algorithm: md5}}
      - {name: d, value: {env: X, digits: 6}}
    type: cookie
    domains: [a.test]
    cookies: [{raw: "{{session}}"}]
`,
    );
    expect(loaded.messages).toEqual([
      's.yaml:5:51: dynamic[0].variables[1].value.digits: must be between 6 and 10, found 4',
      's.yaml:6:54: dynamic[0].variables[2].value.algorithm: unknown algorithm "md5"; give one of sha1, sha256, sha512',
      's.yaml:7:35: dynamic[0].variables[3].value.digits: "digits" is an option of {totp: …}; remove it here',
    ]);
    const bad = await loadText(entry('{totp: "not base32!"}'));
    expect(bad.messages).toEqual([
      's.yaml:5:23: dynamic[0].variables[0].value: the TOTP secret is not base32: it holds "!"; base32 uses A-Z and 2-7 only',
    ]);
  });

  it('is refused in a secret sent with every request, saying where it belongs', async () => {
    const loaded = await loadText(`static:
  - type: bearertoken
    domains: [a.test]
    token: {totp: GEZDGNBV}
`);
    expect(loaded.messages).toEqual([
      "s.yaml:4:19: static[0].token: a {totp: …} code is made when a login runs: give it in a dynamic entry's variables: or login:, not in a secret sent with every request",
    ]);
  });
});
