import type { HttpRequest, Scheme } from '../http/index.js';
import { applyCredential } from './apply.js';
import { scopeText } from './entries.js';
import { domainItemMatches, type MatchKey, matchKey, matchKeyOfUrl } from './host.js';
import { SecretIndex } from './lookup.js';
import type { Credential, DynamicSecret, Login, Scope, StaticSecret, Verify } from './model.js';

/** Sends a session check as it is (its secret applied) and gives its answer. */
export type SessionCheck = (
  request: HttpRequest,
) => Promise<{ readonly status: number; readonly text: string }>;

/**
 * Runs a login's `verify:` request with the session's own secret for that URL: a request that
 * only a live session passes. The URL must be within one of the entry's secrets, so the check
 * never takes a session anywhere else. Undefined when it passes, else why not.
 */
export async function checkSession(
  login: Login,
  credentials: ReadonlyMap<DynamicSecret, Credential>,
  send: SessionCheck,
): Promise<string | undefined> {
  const verify = login.verify;
  if (verify === undefined) return undefined;
  const destination = destinationOf(verify);
  const secret = new SecretIndex(login.secrets).lookup(
    matchKey(destination.scheme, destination.hostname, destination.port),
  );
  const credential = secret?.kind === 'dynamic' ? credentials.get(secret) : undefined;
  if (credential === undefined)
    return `the session check ${verify.url} is outside the scope of the entry's secrets; give a URL of the app it logs in to`;
  return runCheck('session', verify, credential, send);
}

/**
 * Runs a static entry's `verify:` request with its secret, and nothing else of the scan's: the
 * secret is only used when the target takes it. Undefined when it passes, else why not.
 */
export async function checkSecret(secret: StaticSecret, send: SessionCheck): Promise<string | undefined> {
  const verify = secret.verify;
  if (verify === undefined) return undefined;
  const key = matchKeyOfUrl(new URL(verify.url));
  if (key === undefined || !scopeMatches(secret.scope, key))
    return `the secret check ${verify.url} is outside the entry's scope (${scopeText(secret.scope)}); give a URL on a host it applies to`;
  return runCheck('secret', verify, secret.credential, send);
}

/**
 * For the decoder: why a check URL is outside every scope given (undefined when it is within one).
 * The check carries the secret, so it may only go where the secret goes.
 */
export function outsideScopes(scopes: readonly Scope[], whose: string): (url: URL) => string | undefined {
  return (url) => {
    const key = matchKeyOfUrl(url);
    if (key === undefined || scopes.some((scope) => scopeMatches(scope, key))) return undefined;
    const written = scopes.map(scopeText).join('; ');
    return `${key.text} is outside the scope of ${whose} (${written}): the check is sent with the secret, so it may only go where the secret goes; give a URL on a host the entry applies to`;
  };
}

function scopeMatches(scope: Scope, key: MatchKey): boolean {
  return scope.kind === 'domains'
    ? scope.domains.some((item) => domainItemMatches(item, key))
    : scope.patterns.some((pattern) => pattern.test(key.text));
}

function destinationOf(verify: Verify): { scheme: Scheme; hostname: string; port: number; target: string } {
  const url = new URL(verify.url);
  const scheme = url.protocol.slice(0, -1) as Scheme;
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return { scheme, hostname, port, target: `${url.pathname}${url.search}` };
}

async function runCheck(
  what: 'session' | 'secret',
  verify: Verify,
  credential: Credential,
  send: SessionCheck,
): Promise<string | undefined> {
  const { scheme, hostname, port, target } = destinationOf(verify);
  const request: HttpRequest = { method: 'GET', scheme, hostname, port, target, headers: [], body: '' };
  let answer: { status: number; text: string };
  try {
    answer = await send(applyCredential(request, credential));
  } catch (error) {
    return `the ${what} check ${verify.url} could not be sent: ${error instanceof Error ? error.message : String(error)}`;
  }
  const problems: string[] = [];
  if (verify.status.length > 0 && !verify.status.includes(answer.status))
    problems.push(`its status is ${answer.status}, not ${verify.status.join(' or ')}`);
  if (verify.regex !== undefined && !verify.regex.test(answer.text))
    problems.push(`it does not match /${verify.regex.source}/`);
  return problems.length === 0 ? undefined : `the ${what} check ${verify.url} failed: ${problems.join('; ')}`;
}
