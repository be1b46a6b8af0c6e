import { describe, expect, it } from 'vitest';
import type { ResultEvent } from './event.js';
import { redactEvent } from './redact.js';

const mask = (text: string) => text.replaceAll('s3cret', '[REDACTED]');

function event(overrides: Record<string, unknown>): ResultEvent {
  return {
    'template-id': 't',
    info: { name: 'n', author: ['a'], tags: null, severity: 'high' },
    type: 'http',
    'matched-at': 'https://a.test/x',
    'matcher-status': true,
    ...overrides,
  } as unknown as ResultEvent;
}

describe('redactEvent', () => {
  it('redacts every string at any depth and leaves the event it was given unchanged', () => {
    const given = event({
      'extracted-results': ['s3cret', 'plain'],
      meta: { token: 'Bearer s3cret' },
      request: 'GET /?k=s3cret HTTP/1.1',
    });
    const before = JSON.stringify(given);
    const redacted = redactEvent(given, mask) as unknown as Record<string, unknown>;
    expect(JSON.stringify(redacted)).not.toContain('s3cret');
    expect(redacted['extracted-results']).toEqual(['[REDACTED]', 'plain']);
    expect(redacted.meta).toEqual({ token: 'Bearer [REDACTED]' });
    expect(Object.keys(redacted)).toEqual(Object.keys(given));
    expect(JSON.stringify(given)).toBe(before);
  });

  it('shares the parts that hold nothing to redact instead of copying them', () => {
    const given = event({ request: 'GET /?k=s3cret HTTP/1.1' });
    const redacted = redactEvent(given, mask);
    expect(redacted).not.toBe(given);
    expect(redacted.info).toBe(given.info);
    const clean = event({ request: 'GET / HTTP/1.1' });
    expect(redactEvent(clean, mask)).toBe(clean);
  });
});
