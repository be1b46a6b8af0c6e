import { basicAuthorization, type OAuth2Spec } from '../secretfile/index.js';
import { bodyText, type LoginBrowser, requestTo } from './login-http.js';

export class OAuth2Error extends Error {
  override readonly name = 'OAuth2Error';
}

/**
 * An OAuth 2.0 token request (RFC 6749 §4.3, §4.4, §6). The client authenticates with HTTP Basic
 * (the method every server must support) unless `auth-method: body` says otherwise; a server that
 * refuses Basic with `invalid_client` is asked once more with the credentials in the body. The
 * session values are the fields of the token answer: `access_token`, `token_type`, `expires_in`…
 */
export async function oauth2Login(
  spec: OAuth2Spec<string>,
  browser: LoginBrowser,
): Promise<Record<string, string>> {
  const first = spec.authMethod ?? 'basic';
  let answer = await tokenRequest(spec, browser, first);
  if (spec.authMethod === undefined && answer.status === 401 && answer.error === 'invalid_client')
    answer = await tokenRequest(spec, browser, 'body');
  const at = `${spec.tokenUrl} (status ${answer.status})`;
  if (answer.status !== 200 || answer.fields === undefined) {
    const error =
      answer.error === undefined
        ? ''
        : `: ${answer.error}${answer.description === undefined ? '' : ` (${answer.description})`}`;
    throw new OAuth2Error(`the token request was refused, ${at}${error}`);
  }
  if (typeof answer.fields.access_token !== 'string' || answer.fields.access_token === '')
    throw new OAuth2Error(`the token answer has no access_token, ${at}`);
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.fields))
    if (typeof value === 'string' || typeof value === 'number') values[name] = String(value);
  return values;
}

interface TokenAnswer {
  readonly status: number;
  readonly fields: Record<string, unknown> | undefined;
  readonly error: string | undefined;
  readonly description: string | undefined;
}

async function tokenRequest(
  spec: OAuth2Spec<string>,
  browser: LoginBrowser,
  method: 'basic' | 'body',
): Promise<TokenAnswer> {
  const form = new URLSearchParams({ grant_type: spec.grant.kind });
  if (spec.grant.kind === 'password') {
    form.set('username', spec.grant.username);
    form.set('password', spec.grant.password);
  } else if (spec.grant.kind === 'refresh_token') form.set('refresh_token', spec.grant.refreshToken);
  if (spec.scope !== undefined) form.set('scope', spec.scope);
  const headers: [string, string][] = [
    ['Content-Type', 'application/x-www-form-urlencoded'],
    ['Accept', 'application/json'],
  ];
  if (method === 'basic') {
    // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
    const id = encodeURIComponent(spec.clientId);
    const secret = encodeURIComponent(spec.clientSecret ?? '');
    headers.push(['Authorization', basicAuthorization(id, secret)]);
  } else {
    form.set('client_id', spec.clientId);
    if (spec.clientSecret !== undefined) form.set('client_secret', spec.clientSecret);
  }
  const response = await browser.send(requestTo('POST', spec.tokenUrl, headers, form.toString()));
  let fields: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(bodyText(response));
    if (typeof parsed === 'object' && parsed !== null) fields = parsed as Record<string, unknown>;
  } catch {
    fields = undefined;
  }
  const text = (name: string) => (typeof fields?.[name] === 'string' ? (fields[name] as string) : undefined);
  return {
    status: response.statusCode,
    fields,
    error: text('error'),
    description: text('error_description'),
  };
}
