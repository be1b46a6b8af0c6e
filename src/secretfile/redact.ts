import { encodeHTML } from 'entities';
import { encodeQueryComponent } from '../http/index.js';
import type { Credential } from './model.js';

export const REDACTED = '[REDACTED]';

/**
 * Values shorter than this are not masked on their own: masking "1" or "ab" would garble every
 * finding while protecting nothing (a secret that short is guessable anyway). Their forms on the
 * wire that are long enough are still masked, e.g. the `Basic` credential of a short password.
 */
export const MIN_REDACTED_LENGTH = 4;

/**
 * Masks secret values in text. Every resolved secret (static, referenced, or from a login) is
 * registered with the whole-text forms it takes on the wire: for basic auth `user:password`, and
 * the base64 of each value and of that pair (standard and URL-safe, padded or not). Each form is
 * then found however a target's encoder wrote its characters back: as they are; percent-encoded
 * (upper- or lower-case hex, `+` for a space, some characters encoded and others not);
 * JSON-escaped (`\"`, `\/`, `\u00e9`); as HTML character references (`&quot;`, `&#34;`, `&#x22;`);
 * or any mix of these. ASCII letters and digits are taken as written, as every such encoder leaves
 * them.
 */
export class Redactor {
  /** Forms found however their characters are written. */
  private readonly forms = new Set<string>();
  /** The encoded forms of values too short to be masked on their own, found as written. */
  private readonly literals = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers a secret value and its derived forms. */
  register(value: string): void {
    if (value.length < MIN_REDACTED_LENGTH) {
      for (const form of shortValueForms(value)) this.addLiteral(form);
      return;
    }
    this.addForm(value);
    for (const form of base64Forms(value)) this.addForm(form);
  }

  /** Registers every value of a credential, plus the forms that only exist for its type. */
  registerCredential(credential: Credential): void {
    switch (credential.type) {
      case 'basicauth': {
        const pair = `${credential.username}:${credential.password}`;
        this.register(credential.username);
        this.register(credential.password);
        this.register(pair);
        // The Basic credential, whatever the lengths of its parts.
        for (const form of base64Forms(pair)) this.addForm(form);
        return;
      }
      case 'bearertoken':
        this.register(credential.token);
        return;
      case 'header':
        for (const h of credential.headers) this.register(h.value);
        return;
      case 'query':
        for (const p of credential.params) this.register(p.value);
        return;
      case 'cookie':
        for (const c of credential.cookies) this.register(c.value);
        return;
    }
  }

  /**
   * Registers the value of a header given on the command line (`-H`) when its name says it carries
   * a credential: the whole value, the credential after an auth scheme (`Bearer xyz` → `xyz`), and
   * each cookie value of a `Cookie` header. Other headers (`User-Agent`, `Accept`) stay readable.
   */
  registerHeader(name: string, value: string): void {
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      for (const pair of value.split(';')) {
        const eq = pair.indexOf('=');
        this.register((eq < 0 ? pair : pair.slice(eq + 1)).trim());
      }
      return;
    }
    if (!CREDENTIAL_HEADER.test(lower)) return;
    this.register(value.trim());
    const scheme = AUTH_SCHEME.exec(value);
    if (scheme?.[1] !== undefined) this.register(scheme[1]);
  }

  /** `text` with every registered value, in any of its forms, replaced by `[REDACTED]` (longest first). */
  redact(text: string): string {
    if (this.forms.size === 0 && this.literals.size === 0) return text;
    this.pattern ??= new RegExp(
      [
        ...[...this.forms].map((form) => ({ form, source: anyWriting(form) })),
        ...[...this.literals].map((form) => ({ form, source: escapeRegExp(form) })),
      ]
        .sort((a, b) => b.form.length - a.form.length)
        .map(({ source }) => source)
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }

  get size(): number {
    return this.forms.size + this.literals.size;
  }

  private addForm(form: string): void {
    if (form.length < MIN_REDACTED_LENGTH || this.forms.has(form)) return;
    this.forms.add(form);
    this.pattern = undefined;
  }

  private addLiteral(form: string): void {
    if (form.length < MIN_REDACTED_LENGTH || this.literals.has(form)) return;
    this.literals.add(form);
    this.pattern = undefined;
  }
}

/** Header names that carry credentials by convention (Authorization, X-API-Key, X-Auth-Token, …). */
const CREDENTIAL_HEADER = /auth|token|secret|api-?key|apikey|session|passw|credential|csrf|xsrf|signature/;

/** A header whose value is a credential (`-H Authorization: …`, `-H Cookie: …`, `-H X-Api-Key: …`). */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'cookie' || CREDENTIAL_HEADER.test(lower);
}

/** `Scheme credential` as in `Authorization: Bearer xyz`: the credential part. */
const AUTH_SCHEME = /^\s*[A-Za-z][\w-]*\s+(\S.*?)\s*$/;

/**
 * The encoded forms of a value too short to mask as it is, as query values and JSON carry it (those
 * long enough are masked as written: `a b` as `a%20b`, never as `a+b`).
 */
function shortValueForms(value: string): string[] {
  const forms = [encodeQueryComponent(value), JSON.stringify(value).slice(1, -1)];
  try {
    forms.push(encodeURIComponent(value));
  } catch {
    // A lone surrogate cannot be URI-encoded; the other forms still cover it.
  }
  return forms;
}

/** The base64 of a value's UTF-8 bytes: standard and URL-safe, each padded and not. */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const standard = bytes.toString('base64');
  const urlSafe = bytes.toString('base64url');
  return [
    standard,
    standard.replace(/=+$/, ''),
    urlSafe,
    `${urlSafe}${'='.repeat(standard.length - urlSafe.length)}`,
  ];
}

/** A pattern matching `form` with each character written in any of the ways {@link Redactor} lists. */
function anyWriting(form: string): string {
  let source = '';
  for (const character of form) source += writingsOf(character);
  return source;
}

/** Each character's pattern, made once: the same characters recur in every secret. */
const writings = new Map<string, string>();

function writingsOf(character: string): string {
  let pattern = writings.get(character);
  if (pattern === undefined) {
    pattern = characterPattern(character);
    writings.set(character, pattern);
  }
  return pattern;
}

const utf8 = new TextEncoder();

/** JSON's two-character escapes: the character after the backslash, as a pattern. */
const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': 'b',
  '\f': 'f',
  '\n': 'n',
  '\r': 'r',
  '\t': 't',
};

/**
 * The pattern of one character (a code point) written in any of the ways text carries it: as is
 * (`+` too for a space), percent-encoded, JSON-escaped, or as an HTML character reference. Kept
 * compact (one group per kind of escape), as a secret's pattern repeats it for every character.
 */
function characterPattern(character: string): string {
  // Encoders leave ASCII letters and digits as they are: a pattern with every escape of every
  // character would take V8 a second to compile for a few secrets.
  if (/^[A-Za-z0-9]$/.test(character)) return character;
  const codePoint = character.codePointAt(0) ?? 0;
  const literal = character === ' ' ? '[ +]' : escapeRegExp(character);
  // Its UTF-8 bytes (a lone surrogate is written as U+FFFD, as encoders do).
  const percent = [...utf8.encode(character)].map((byte) => `%${hexDigits(byte, 2)}`).join('');
  const units = Array.from({ length: character.length }, (_, i) => hexDigits(character.charCodeAt(i), 4));
  const shortEscape = JSON_SHORT_ESCAPES[character];
  const json = `u${units.join('\\\\u')}${shortEscape === undefined ? '' : `|${shortEscape}`}`;
  const named = encodeHTML(character);
  const name = named !== character && /^&[A-Za-z][A-Za-z0-9]*;$/.test(named) ? `|${named.slice(1, -1)}` : '';
  const reference = `#(?:0*${codePoint}|[xX]0*${hexDigits(codePoint, 1)})${name}`;
  return `(?:${literal}|${percent}|\\\\(?:${json})|&(?:${reference});)`;
}

/** `n` in hex, at least `width` digits, each digit matching either case. */
function hexDigits(n: number, width: number): string {
  return [...n.toString(16).padStart(width, '0')]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
