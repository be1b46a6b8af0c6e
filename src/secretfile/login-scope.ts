import { targetKey } from './coverage.js';
import { domainItemMatches, matchKey } from './host.js';
import { SecretIndex } from './lookup.js';
import { type Login, originLabel } from './model.js';
import type { Destination } from './resolver.js';

/**
 * Where a login's redirects may lead: the hosts its entry's secrets apply to, the host it logs in
 * at, and for a browser login the hosts of its `allow:` (an identity provider). A 307 or 308
 * re-sends the login's body (its credentials) to the new host, and any redirect may carry them in
 * its URL: a redirect anywhere else ends the login, which then fails with why.
 */
export function loginRedirectRefusal(login: Login, target: string): (to: Destination) => string | undefined {
  const inScope = loginScope(login, target);
  const browser = login.method.kind === 'browser';
  return (to) => {
    if (inScope(to)) return undefined;
    const key = matchKey(to.scheme, to.hostname, to.port);
    const fix = browser
      ? "the entry's domains, or to login.allow: when it is an identity provider"
      : "the entry's domains";
    return (
      `the login was redirected to ${key.text}, outside the scope of ${originLabel(login.origin)} ` +
      `and the host${browser ? 's' : ''} it logs in at; the redirect was not followed, so its credentials did not go there ` +
      `(if ${key.text} belongs to the app, add it to ${fix})`
    );
  };
}

/** Whether a login may send anything to a destination (see {@link loginRedirectRefusal}). */
export function loginScope(login: Login, target: string): (to: Destination) => boolean {
  const scope = new SecretIndex(login.secrets);
  const home = targetKey(login.input ?? target)?.text;
  const allow = login.method.kind === 'browser' ? login.method.browser.allow : [];
  return (to) => {
    const key = matchKey(to.scheme, to.hostname, to.port);
    return (
      key.text === home ||
      scope.lookup(key) !== undefined ||
      allow.some((item) => domainItemMatches(item, key))
    );
  };
}
