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
 * registered, together with the forms it takes on the wire: percent-encoded (query parameters, both
 * our encoding and the common `encodeURIComponent`/form encodings), JSON-escaped (inside JSONL
 * output), and for basic auth `user:password` and its base64.
 */
export class Redactor {
  private readonly values = new Set<string>();
  private pattern: RegExp | undefined;

  /** Registers a secret value and its derived forms. */
  register(value: string): void {
    for (const form of derivedForms(value)) this.add(form);
  }

  /** Registers every value of a credential, plus the forms that only exist for its type. */
  registerCredential(credential: Credential): void {
    switch (credential.type) {
      case 'basicauth': {
        const pair = `${credential.username}:${credential.password}`;
        this.register(credential.username);
        this.register(credential.password);
        this.register(pair);
        this.add(Buffer.from(pair, 'utf8').toString('base64'));
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

  /** `text` with every registered value replaced by `[REDACTED]` (longest values first). */
  redact(text: string): string {
    if (this.values.size === 0) return text;
    this.pattern ??= new RegExp(
      [...this.values]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }

  get size(): number {
    return this.values.size;
  }

  private add(form: string): void {
    if (form.length < MIN_REDACTED_LENGTH || this.values.has(form)) return;
    this.values.add(form);
    this.pattern = undefined;
  }
}

/** Header names that carry credentials by convention (Authorization, X-API-Key, X-Auth-Token, …). */
const CREDENTIAL_HEADER = /auth|token|secret|api-?key|apikey|session|passw|credential|csrf|xsrf|signature/;

/** `Scheme credential` as in `Authorization: Bearer xyz`: the credential part. */
const AUTH_SCHEME = /^\s*[A-Za-z][\w-]*\s+(\S.*?)\s*$/;

function derivedForms(value: string): string[] {
  const forms = [value, encodeQueryComponent(value), JSON.stringify(value).slice(1, -1)];
  try {
    const uri = encodeURIComponent(value);
    forms.push(uri, uri.replaceAll('%20', '+'));
  } catch {
    // A lone surrogate cannot be URI-encoded; the other forms still cover it.
  }
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
