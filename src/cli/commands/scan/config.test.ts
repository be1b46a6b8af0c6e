import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../exit.js';
import { scanConfig } from './config.js';

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
