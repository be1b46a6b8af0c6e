import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from './exit.js';
import { scanConfig } from './scan-options.js';
import { parseHeader, parseVariable } from './shared/request-config.js';

describe('scan flags', () => {
  it('have nuclei defaults: 25 runs at once, 150 requests/s, 10 s timeout, 1 retry, redaction and storing on', () => {
    expect(scanConfig({})).toMatchObject({
      concurrency: 25,
      rateLimit: 150,
      timeoutMs: 10_000,
      retries: 1,
      redact: true,
      store: true,
      team: 'default',
    });
  });

  it('read -rl 0 as no limit, and decimals where a rate or a time allows them', () => {
    expect(scanConfig({ rateLimit: '0', timeout: '2.5' })).toMatchObject({
      rateLimit: undefined,
      timeoutMs: 2500,
    });
    expect(scanConfig({ rateLimit: '0.5' }).rateLimit).toBe(0.5);
  });

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

  it('turn any numeric flag text into a number in range, or a UserError naming the flag', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          const config = scanConfig({ concurrency: text, retries: text });
          expect(Number.isInteger(config.concurrency) && config.concurrency >= 1).toBe(true);
          expect(Number.isInteger(config.retries) && config.retries >= 0).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(UserError);
          expect((error as Error).message).toMatch(/^-(c\/-concurrency|retries) takes/);
        }
      }),
    );
  });
});
