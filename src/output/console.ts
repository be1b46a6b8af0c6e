/**
 * A finding as one console line, the way nuclei prints it:
 * `[template-id:matcher] [http] [severity] matched-at ["extracted",…] [name="payload",…]`,
 * with `[matched]`/`[failed]` after the id when non-matches are shown too (`-ms`); a run that
 * matched nothing shows the URL it was run on.
 */
import pc from 'picocolors';
import type { ResultEvent, Severity } from '../event/index.js';

export interface ConsoleFormat {
  /** ANSI colours (only when writing to a terminal). */
  readonly colour: boolean;
  /** `-ms`: say for every line whether it matched. */
  readonly matcherStatus: boolean;
}

type Colours = ReturnType<typeof pc.createColors>;

const plain = pc.createColors(false);
const coloured = pc.createColors(true);

export function formatFinding(event: ResultEvent, format: ConsoleFormat): string {
  const c = format.colour ? coloured : plain;
  const name = event['matcher-name'] ?? event['extractor-name'];
  let line = `[${c.greenBright(event['template-id'])}${name === undefined || name === '' ? '' : `:${c.bold(c.greenBright(name))}`}]`;
  if (format.matcherStatus) line += ` [${event['matcher-status'] ? c.green('matched') : c.red('failed')}]`;
  line += ` [${c.blueBright(event.type)}] [${severityLabel(event.info.severity, c)}] `;
  // A run that matched nothing has no matched-at (as in nuclei's events): its input URL says where
  // it was tried, scheme, port and path included, where nuclei's line shows only the host.
  line += event['matched-at'] ?? event.url ?? event.host ?? '';
  const extracted = event['extracted-results'] ?? [];
  if (extracted.length > 0) {
    line += ` [${extracted.map((item) => c.cyanBright(quoteForScreen(item.trim()))).join(',')}]`;
  }
  const lines = event['matched-line'] ?? [];
  if (lines.length > 0) line += ` [LN: ${lines.join(',')}]`;
  const meta = event.meta === undefined ? [] : Object.keys(event.meta).sort();
  if (meta.length > 0) {
    const pairs = meta.map(
      (key) => `${c.yellowBright(key)}=${c.yellowBright(quoteForScreen(textOf(event.meta?.[key])))}`,
    );
    line += ` [${pairs.join(',')}]`;
  }
  return line;
}

function severityLabel(severity: Severity | '', c: Colours): string {
  switch (severity) {
    case 'critical':
      return c.bold(c.red('critical'));
    case 'high':
      return c.red('high');
    case 'medium':
      return c.yellow('medium');
    case 'low':
      return c.green('low');
    case 'info':
      return c.blue('info');
    case 'unknown':
    case '':
      return c.magenta('unknown');
  }
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
};

/**
 * Go's `strconv.QuoteToASCII` with the inner quotes left unescaped, as nuclei shows extracted values:
 * control and non-ASCII characters escaped (`\n`, `\x01`, `\u00e9`, `\U0001f600`), so a value can
 * neither garble the terminal nor hide in look-alike characters.
 */
export function quoteForScreen(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) out += short;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else if (code <= 0xffff) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
