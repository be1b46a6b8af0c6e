import { targetKey } from './coverage.js';
import { matchKey } from './host.js';
import { SecretIndex } from './lookup.js';
import { type Login, originLabel } from './model.js';
import type { Destination } from './resolver.js';

/**
 * Where a login's redirects may lead: the hosts its entry's secrets apply to, and the host it logs in
 * at. A 307 or 308 re-sends the login's body (its credentials) to the new host, and any redirect
 * may carry them in its URL: a redirect anywhere else ends the login, which then fails with why.
 */
export function loginRedirectRefusal(login: Login, target: string): (to: Destination) => string | undefined {
  const scope = new SecretIndex(login.secrets);
  const home = targetKey(login.input ?? target)?.text;
  return (to) => {
    const key = matchKey(to.scheme, to.hostname, to.port);
    if (key.text === home || scope.lookup(key) !== undefined) return undefined;
    return (
      `the login was redirected to ${key.text}, outside the scope of ${originLabel(login.origin)} ` +
      'and the host it logs in at; the redirect was not followed, so its credentials did not go there ' +
      `(if ${key.text} belongs to the app, add it to the entry's domains)`
    );
  };
}
