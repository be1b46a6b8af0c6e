import type { FormLoginSpec, Login, LoginMethod, LoginMethodSpec, OAuth2Spec, Sourced } from './model.js';
import type { LoginValue } from './totp.js';

/** Every value of a login's own fields (`login:`, `oauth2:`) that is resolved when the file loads. */
export function methodValues(method: LoginMethodSpec<Sourced>): Sourced[] {
  switch (method.kind) {
    case 'template':
      return [];
    case 'form': {
      const { url, username, password, totp } = method.form;
      return [url, username, password, ...(totp === undefined ? [] : [totp])];
    }
    case 'oauth2': {
      const { tokenUrl, clientId, clientSecret, grant } = method.oauth2;
      const own =
        grant.kind === 'password'
          ? [grant.username, grant.password]
          : grant.kind === 'refresh_token'
            ? [grant.refreshToken]
            : [];
      return [tokenUrl, clientId, ...(clientSecret === undefined ? [] : [clientSecret]), ...own];
    }
  }
}

/** The values of a login's own fields that are secrets (not its URL or a username). */
export function methodSecrets(method: LoginMethodSpec<Sourced>): Sourced[] {
  if (method.kind === 'form')
    return [method.form.password, ...(method.form.totp === undefined ? [] : [method.form.totp])];
  if (method.kind === 'oauth2') {
    const { clientSecret, grant } = method.oauth2;
    const own =
      grant.kind === 'password'
        ? [grant.password]
        : grant.kind === 'refresh_token'
          ? [grant.refreshToken]
          : [];
    return [...(clientSecret === undefined ? [] : [clientSecret]), ...own];
  }
  return [];
}

/**
 * The values of a login's own fields that output masks: its secrets and the user it logs in as, as a
 * login template's variables are. Not its URLs or client id: masking those would hide the app's own
 * addresses in every finding.
 */
export function methodRedacted(method: LoginMethodSpec<Sourced>): Sourced[] {
  const user =
    method.kind === 'form'
      ? [method.form.username]
      : method.kind === 'oauth2' && method.oauth2.grant.kind === 'password'
        ? [method.oauth2.grant.username]
        : [];
  return [...user, ...methodSecrets(method)];
}

/** The login's fields with their references resolved; `templatePath` is where its template was found. */
export function resolvedMethod(
  method: Exclude<LoginMethodSpec<Sourced>, { kind: 'template' }>,
  text: (value: Sourced) => string,
  loginValue: (value: Sourced) => LoginValue,
): LoginMethod {
  if (method.kind === 'form') {
    const form = method.form;
    const resolved: FormLoginSpec<LoginValue> = {
      ...form,
      url: text(form.url),
      username: loginValue(form.username),
      password: loginValue(form.password),
      totp: form.totp === undefined ? undefined : loginValue(form.totp),
    };
    return { kind: 'form', form: resolved };
  }
  const o = method.oauth2;
  const grant: OAuth2Spec<string>['grant'] =
    o.grant.kind === 'password'
      ? { kind: 'password', username: text(o.grant.username), password: text(o.grant.password) }
      : o.grant.kind === 'refresh_token'
        ? { kind: 'refresh_token', refreshToken: text(o.grant.refreshToken) }
        : { kind: 'client_credentials' };
  const oauth2: OAuth2Spec<string> = {
    ...o,
    tokenUrl: text(o.tokenUrl),
    clientId: text(o.clientId),
    clientSecret: o.clientSecret === undefined ? undefined : text(o.clientSecret),
    grant,
  };
  return { kind: 'oauth2', oauth2 };
}

/** The login template of a login that runs one. */
export function loginTemplatePath(login: Login): string | undefined {
  return login.method.kind === 'template' ? login.method.template : undefined;
}

/** How a login is described to the user: `template login.yaml`, `form login at …`, `OAuth 2.0 …`. */
export function loginKind(login: Login): string {
  switch (login.method.kind) {
    case 'template':
      return `template ${login.method.template}`;
    case 'form':
      return `${login.method.form.json === undefined ? 'form' : 'JSON'} login at ${String(login.method.form.url)}`;
    case 'oauth2':
      return `OAuth 2.0 ${login.method.oauth2.grant.kind} grant at ${login.method.oauth2.tokenUrl}`;
  }
}
