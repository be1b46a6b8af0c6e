import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostic.js';
import { printable, printableLines, quote } from './printable.js';

describe('printable', () => {
  it('shows C0 controls, DEL and C1 controls as escapes', () => {
    expect(printable('a\x1b[2Jb\x07c\x00d\ne\r\tf\x7fg\x9bh')).toBe(
      'a\\x1b[2Jb\\x07c\\x00d\\ne\\r\\tf\\x7fg\\x9bh',
    );
  });

  it('shows bidirectional overrides and marks, and the Unicode line separators, as escapes', () => {
    expect(printable('admin\u202etxt.exe \u2066x\u2069 \u200f \u061c \u2028')).toBe(
      'admin\\u202etxt.exe \\u2066x\\u2069 \\u200f \\u061c \\u2028',
    );
  });

  it('leaves other text as it is, backslashes and non-Latin letters included', () => {
    const text = 'C:\\keys "été" 日本 ü → 🔑 \u00a0';
    expect(printable(text)).toBe(text);
  });

  it('quotes with " and \\ escaped as in JSON and controls escaped as printable does', () => {
    expect(quote('say "hi"\\\x1b\u202e')).toBe('"say \\"hi\\"\\\\\\x1b\\u202e"');
  });

  it('keeps the line breaks of a message of several lines and escapes the rest', () => {
    expect(printableLines('usage:\n  \x1b[31mred\n')).toBe('usage:\n  \\x1b[31mred\n');
  });

  it('makes a diagnostic that quotes a file one line of visible text', () => {
    const line = formatDiagnostic({
      severity: 'error',
      file: 'secrets.yaml',
      line: 3,
      col: 5,
      path: 'static[0].\x1b]0;owned\x07',
      message: 'unknown field "\x1b[2J\n"',
    });
    expect(line).toBe('secrets.yaml:3:5: static[0].\\x1b]0;owned\\x07: unknown field "\\x1b[2J\\n"');
  });
});
