import { describe, expect, it } from 'vitest';
import { Redactor } from './redact.js';

describe('Redactor', () => {
  it('masks registered values anywhere in a text', () => {
    const r = new Redactor();
    r.register('s3cr3t-token');
    expect(r.redact('Authorization: Bearer s3cr3t-token\nagain s3cr3t-token')).toBe(
      'Authorization: Bearer [REDACTED]\nagain [REDACTED]',
    );
  });

  it('masks the Basic credential of a basic-auth secret, even with a short password', () => {
    const r = new Redactor();
    r.registerCredential({ type: 'basicauth', username: 'admin', password: 'pw' });
    const basic = Buffer.from('admin:pw').toString('base64');
    expect(r.redact(`Authorization: Basic ${basic}`)).toBe('Authorization: Basic [REDACTED]');
  });

  it('masks percent-encoded and form-encoded forms, as query values appear on the wire', () => {
    const r = new Redactor();
    r.registerCredential({ type: 'query', params: [{ name: 'api_key', value: 'a b&c/d' }] });
    expect(r.redact('GET /?api_key=a%20b%26c%2Fd')).toBe('GET /?api_key=[REDACTED]');
    expect(r.redact('GET /?api_key=a+b%26c%2Fd')).toBe('GET /?api_key=[REDACTED]');
  });

  it('masks the JSON-escaped form, as values appear inside JSONL output', () => {
    const r = new Redactor();
    r.register('quote"back\\slash');
    expect(r.redact(JSON.stringify({ request: 'x quote"back\\slash y' }))).toBe(
      '{"request":"x [REDACTED] y"}',
    );
  });

  it('does not mask values shorter than four characters on their own', () => {
    const r = new Redactor();
    r.register('ab');
    r.register('abc');
    r.register('abcd');
    expect(r.redact('ab abc abcd')).toBe('ab abc [REDACTED]');
  });

  it('masks the longest value first when values overlap', () => {
    const r = new Redactor();
    r.register('token');
    r.register('token-extended');
    expect(r.redact('x token-extended y token')).toBe('x [REDACTED] y [REDACTED]');
  });

  it('treats regex characters in values literally', () => {
    const r = new Redactor();
    r.register('a.b*c(d)');
    expect(r.redact('a.b*c(d) aXbbc(d)')).toBe('[REDACTED] aXbbc(d)');
  });

  it('leaves text alone when nothing is registered', () => {
    expect(new Redactor().redact('plain')).toBe('plain');
  });

  describe('registerHeader (values given with -H)', () => {
    it('masks an Authorization header, whole and by its credential after the scheme', () => {
      const r = new Redactor();
      r.registerHeader('Authorization', 'Bearer eyJhbGciOi.payload.sig');
      expect(r.redact('Authorization: Bearer eyJhbGciOi.payload.sig')).toBe('Authorization: [REDACTED]');
      expect(r.redact('token=eyJhbGciOi.payload.sig')).toBe('token=[REDACTED]');
    });

    it('masks the values of API-key, token and session headers whatever their case', () => {
      const r = new Redactor();
      r.registerHeader('X-API-Key', 'key-123456');
      r.registerHeader('x-auth-token', 'tok-abcdef');
      r.registerHeader('X-Session', 'sess-7777');
      expect(r.redact('key-123456 tok-abcdef sess-7777')).toBe('[REDACTED] [REDACTED] [REDACTED]');
    });

    it('masks each cookie value of a Cookie header, values with = included', () => {
      const r = new Redactor();
      r.registerHeader('Cookie', 'sid=abc123def; jwt=eyJ0eXAi==; lang=en');
      expect(r.redact('Set-Cookie: sid=abc123def\njwt=eyJ0eXAi==')).toBe(
        'Set-Cookie: sid=[REDACTED]\njwt=[REDACTED]',
      );
    });

    it('leaves ordinary headers readable', () => {
      const r = new Redactor();
      r.registerHeader('User-Agent', 'Mozilla/5.0 keyhole');
      r.registerHeader('Accept', 'application/json');
      expect(r.size).toBe(0);
    });
  });
});
