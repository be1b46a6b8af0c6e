import type { HttpRequest, Scheme } from '../http/index.js';
import { applyCredential } from './apply.js';
import { matchKey } from './host.js';
import { SecretIndex } from './lookup.js';
import type { Credential, DynamicSecret, Login } from './model.js';

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
  const url = new URL(verify.url);
  const scheme = url.protocol.slice(0, -1) as Scheme;
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const secret = new SecretIndex(login.secrets).lookup(matchKey(scheme, hostname, port));
  const credential = secret?.kind === 'dynamic' ? credentials.get(secret) : undefined;
  if (credential === undefined)
    return `the session check ${verify.url} is outside the scope of the entry's secrets; give a URL of the app it logs in to`;
  const request: HttpRequest = {
    method: 'GET',
    scheme,
    hostname,
    port,
    target: `${url.pathname}${url.search}`,
    headers: [],
    body: '',
  };
  let answer: { status: number; text: string };
  try {
    answer = await send(applyCredential(request, credential));
  } catch (error) {
    return `the session check ${verify.url} could not be sent: ${error instanceof Error ? error.message : String(error)}`;
  }
  const problems: string[] = [];
  if (verify.status.length > 0 && !verify.status.includes(answer.status))
    problems.push(`its status is ${answer.status}, not ${verify.status.join(' or ')}`);
  if (verify.regex !== undefined && !verify.regex.test(answer.text))
    problems.push(`it does not match /${verify.regex.source}/`);
  return problems.length === 0 ? undefined : `the session check ${verify.url} failed: ${problems.join('; ')}`;
}
