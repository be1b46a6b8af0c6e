/** The cookies of a request's `Cookie` header; the first of a repeated name wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(at + 1).trim());
  }
  return cookies;
}

export interface CookieOptions {
  /** Only over TLS (set when the dashboard is served over https). */
  readonly secure: boolean;
  /** Seconds; 0 deletes the cookie. Without it, the cookie lasts the browser session. */
  readonly maxAge?: number;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Strict, for the whole site. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
