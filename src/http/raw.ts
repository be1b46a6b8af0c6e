import type { HeaderField } from './message.js';

/**
 * The head of a raw HTTP request (request line and header lines) as editable pieces, for requests
 * that are sent exactly as written (`unsafe` templates). Only what is edited is rewritten: every
 * untouched line keeps its bytes and line ending, and the body is never looked at.
 */
export class RawRequestHead {
  private dirty = false;

  private constructor(
    private readonly original: string,
    private readonly method: string,
    private readonly separator: string,
    private target: string,
    private readonly rest: string,
    private readonly requestLineEnd: string,
    private lines: HeaderLine[],
    private readonly eol: string,
    private readonly tail: string,
  ) {}

  /** Splits a raw request; undefined when its first line is not `METHOD target VERSION`. */
  static parse(raw: string): RawRequestHead | undefined {
    const first = nextLine(raw, 0);
    const match = /^(\S+)([ \t]+)(\S+)(.*)$/s.exec(first.text);
    if (match === null) return undefined;
    const [, method = '', separator = ' ', target = '', rest = ''] = match;
    const lines: HeaderLine[] = [];
    let offset = first.next;
    while (offset < raw.length) {
      const line = nextLine(raw, offset);
      if (line.text === '') break;
      const continuation = /^[ \t]/.test(line.text) && lines.length > 0;
      const colon = line.text.indexOf(':');
      lines.push({
        name: continuation || colon < 0 ? undefined : line.text.slice(0, colon).trim(),
        value: colon < 0 ? '' : line.text.slice(colon + 1).trim(),
        text: line.text,
        end: line.end,
      });
      offset = line.next;
    }
    const eol = first.end === '' ? '\r\n' : first.end;
    return new RawRequestHead(raw, method, separator, target, rest, first.end, lines, eol, raw.slice(offset));
  }

  get requestTarget(): string {
    return this.target;
  }

  setRequestTarget(target: string): void {
    this.target = target;
    this.dirty = true;
  }

  get requestMethod(): string {
    return this.method;
  }

  /** The header lines as name/value fields, in order (folded continuation lines are left out). */
  get headers(): HeaderField[] {
    return this.lines.flatMap((l) => (l.name === undefined ? [] : [[l.name, l.value] as const]));
  }

  headerValues(name: string): string[] {
    const lower = name.toLowerCase();
    return this.lines.filter((l) => l.name?.toLowerCase() === lower).map((l) => l.value);
  }

  /**
   * Sets `name` to `value`, as `setHeader` does on a header list: the first line of that name (any
   * casing) is rewritten in place with the given casing, later ones removed; appended when absent.
   */
  setHeader(name: string, value: string): void {
    const lower = name.toLowerCase();
    const out: HeaderLine[] = [];
    let placed = false;
    let dropping = false;
    for (const line of this.lines) {
      if (line.name === undefined && dropping) continue;
      dropping = false;
      if (line.name?.toLowerCase() !== lower) out.push(line);
      else {
        dropping = true;
        if (!placed) {
          out.push({ name, value, text: `${name}: ${value}`, end: line.end });
          placed = true;
        }
      }
    }
    if (!placed) out.push({ name, value, text: `${name}: ${value}`, end: this.eol });
    this.lines = out;
    this.dirty = true;
  }

  /** The request with the edits applied; exactly the original text when nothing was edited. */
  toString(): string {
    if (!this.dirty) return this.original;
    const parts = [`${this.method}${this.separator}${this.target}${this.rest}`];
    const ends = [this.requestLineEnd, ...this.lines.map((l) => l.end)];
    parts.push(...this.lines.map((l) => l.text));
    // A line that ended the text without a line break needs one once a line follows it.
    return (
      parts
        .map((text, i) => text + (i < parts.length - 1 && ends[i] === '' ? this.eol : (ends[i] ?? '')))
        .join('') + this.tail
    );
  }
}

interface HeaderLine {
  /** Undefined for a folded continuation line or a line without a colon; such lines are kept as is. */
  readonly name: string | undefined;
  readonly value: string;
  readonly text: string;
  readonly end: string;
}

function nextLine(raw: string, offset: number): { text: string; end: string; next: number } {
  const lf = raw.indexOf('\n', offset);
  if (lf < 0) return { text: raw.slice(offset), end: '', next: raw.length };
  const cr = lf > offset && raw.charCodeAt(lf - 1) === 13;
  return { text: raw.slice(offset, cr ? lf - 1 : lf), end: cr ? '\r\n' : '\n', next: lf + 1 };
}
