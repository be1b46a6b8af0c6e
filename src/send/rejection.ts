import { type HttpResponse, headerValue } from '../http/index.js';

/**
 * How a target turned away the secret a request carried (a request refused before the wire, because
 * its login failed, is `Refused`):
 * - `unauthorized`: it answered 401, the status that says the credentials sent are missing or not
 *   accepted;
 * - `login-page`: it redirected a request for something else to what looks like its login page, as
 *   web apps answer a session cookie they no longer know.
 *
 * 403 is not counted: it says who is asking is known and not allowed this, which a working secret
 * gets too. A redirect from a login page to a login page (a template posting a default password) is
 * the page at work, not a refusal of the secret.
 */
export type Rejection = 'unauthorized' | 'login-page';

export function rejectionOf(response: HttpResponse): Rejection | undefined {
  const status = response.statusCode;
  if (status === 401) return 'unauthorized';
  if (status < 300 || status > 399 || status === 304) return undefined;
  const location = headerValue(response.headers, 'location');
  if (location === undefined) return undefined;
  const from = pathOf(response.url, undefined);
  const to = pathOf(location, response.url);
  if (from === undefined || to === undefined) return undefined;
  return looksLikeLogin(to) && !looksLikeLogin(from) ? 'login-page' : undefined;
}

// A path segment naming a login, sign-in or single sign-on page, whatever the framework calls it:
// /login, /users/sign_in, /wp-login.php, /accounts/login/, /auth, /sso, /session/new, /signin.aspx.
const LOGIN_PATH =
  /(?:^|[/._-])(?:log[-_]?in|log[-_]?on|sign[-_]?in|sign[-_]?on|auth|sso|cas|session\/new)(?:[/._?#-]|$)/i;

function looksLikeLogin(path: string): boolean {
  return LOGIN_PATH.test(path);
}

function pathOf(url: string, base: string | undefined): string | undefined {
  try {
    const parsed = base === undefined ? new URL(url) : new URL(url, base);
    return decodeURIComponent(parsed.pathname);
  } catch {
    return undefined;
  }
}
