/**
 * Characters that would act on a terminal or reorder what it shows instead of being shown:
 * C0 controls (ESC, BEL, line breaks…), DEL, C1 controls, and the bidirectional marks and
 * overrides (U+061C, U+200E/F, U+202A–E, U+2066–9) plus the line and paragraph separators.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const QUOTED_UNPRINTABLE =
  /["\\\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '"': '\\"',
  '\\': '\\\\',
};

function escapeCharacter(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from a user's input (a file's line, a name, an argument) made safe to print in a message:
 * every control or bidi character becomes a visible escape (`\x1b`, `\n`, `\u202e`), so what is
 * quoted can neither drive the terminal nor pass for another line. Other text is left as it is.
 */
export function printable(text: string): string {
  UNPRINTABLE.lastIndex = 0;
  return UNPRINTABLE.test(text) ? text.replace(UNPRINTABLE, escapeCharacter) : text;
}

/** `text` in double quotes for a message: `"` and `\` escaped as in JSON, and what {@link printable} escapes. */
export function quote(text: string): string {
  return `"${text.replace(QUOTED_UNPRINTABLE, escapeCharacter)}"`;
}

/** A message of several lines with each line made {@link printable}: its own line breaks are kept. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
