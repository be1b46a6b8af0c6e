import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResultEvent } from '../event/index.js';
import { formatFinding, quoteForScreen } from './console.js';

/** An event with `fields` over a plain finding; a field given as undefined is left out. */
function event(fields: { [K in keyof ResultEvent]?: ResultEvent[K] | undefined } = {}): ResultEvent {
  const made: Record<string, unknown> = {
    'template-id': 'exposed-panel',
    info: { name: 'Exposed panel', author: ['a'], tags: null, severity: 'high' },
    type: 'http',
    host: 'app.test',
    'matched-at': 'https://app.test/admin',
    timestamp: '2024-01-01T00:00:00Z',
    'matcher-status': true,
    ...fields,
  };
  for (const [name, value] of Object.entries(made)) if (value === undefined) delete made[name];
  return made as unknown as ResultEvent;
}

describe('console lines', () => {
  it('show template, protocol, severity and where it matched', () => {
    expect(formatFinding(event(), { colour: false, matcherStatus: false })).toBe(
      '[exposed-panel] [http] [high] https://app.test/admin',
    );
  });

  it('name the matcher (or else the extractor) after the template id', () => {
    const line = formatFinding(event({ 'matcher-name': 'login-page', 'extractor-name': 'version' }), {
      colour: false,
      matcherStatus: false,
    });
    expect(line).toBe('[exposed-panel:login-page] [http] [high] https://app.test/admin');
  });

  it('list extracted values quoted, and payload values sorted by name', () => {
    const line = formatFinding(
      event({ 'extracted-results': [' 4.2.1 ', 'say "hi"\nbye'], meta: { user: 'admin', pass: 'pw' } }),
      { colour: false, matcherStatus: false },
    );
    expect(line).toBe(
      '[exposed-panel] [http] [high] https://app.test/admin ["4.2.1","say "hi"\\nbye"] [pass="pw",user="admin"]',
    );
  });

  it('say matched or failed with -ms, and show the URL tried when nothing matched', () => {
    const failed = event({
      'matcher-status': false,
      'matched-at': undefined,
      url: 'https://app.test:8443/shop',
    });
    expect(formatFinding(failed, { colour: false, matcherStatus: true })).toBe(
      '[exposed-panel] [failed] [http] [high] https://app.test:8443/shop',
    );
    const imported = event({ 'matcher-status': false, 'matched-at': undefined, url: undefined });
    expect(formatFinding(imported, { colour: false, matcherStatus: true })).toBe(
      '[exposed-panel] [failed] [http] [high] app.test',
    );
    expect(formatFinding(event(), { colour: false, matcherStatus: true })).toContain('] [matched] [');
  });

  it('colour only when asked', () => {
    expect(formatFinding(event(), { colour: true, matcherStatus: false })).toContain('\u001b[');
    expect(formatFinding(event(), { colour: false, matcherStatus: false })).not.toContain('\u001b');
  });
});

describe('quoteForScreen', () => {
  it('escapes control and non-ASCII characters as Go does, keeping quotes readable', () => {
    expect(quoteForScreen('a"b')).toBe('"a"b"');
    expect(quoteForScreen('tab\tnl\n\u0001\u007f')).toBe('"tab\\tnl\\n\\x01\\x7f"');
    expect(quoteForScreen('é😀')).toBe('"\\u00e9\\U0001f600"');
    expect(quoteForScreen('\u001b[31mred')).toBe('"\\x1b[31mred"');
  });

  it('never lets a control character or a non-ASCII character through, whatever the value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(quoteForScreen(text)).toMatch(/^"[\x20-\x7e]*"$/);
      }),
    );
  });
});
