import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from '../exit.js';
import { parseHeader, parseVariable } from './request-config.js';

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
