import type {
  BrowserLoginSpec,
  FormLoginSpec,
  Login,
  LoginMethod,
  LoginMethodSpec,
  OAuth2Spec,
  Sourced,
} from './model.js';
import type { LoginValue } from './totp.js';

/** Every value of a login's own fields (`login:`, `oauth2:`) that is resolved when the file loads. */
export function methodValues(method: LoginMethodSpec<Sourced>): Sourced[] {
  switch (method.kind) {
    case 'template':
      return [];
    case 'form':
    case 'browser': {
      const { url, username, password, totp } = pageLogin(method);
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

/** The URLs of a login's own fields; `secret`: it carries a client secret (https unless on this machine). */
export function methodUrls(method: LoginMethodSpec<Sourced>): { value: Sourced; secret: boolean }[] {
  if (method.kind === 'form' || method.kind === 'browser')
    return [{ value: pageLogin(method).url, secret: false }];
  if (method.kind === 'oauth2') return [{ value: method.oauth2.tokenUrl, secret: true }];
  return [];
}

/** The values of a login's own fields that are secrets (not its URL or a username). */
export function methodSecrets(method: LoginMethodSpec<Sourced>): Sourced[] {
  if (method.kind === 'form' || method.kind === 'browser') {
    const { password, totp } = pageLogin(method);
    return [password, ...(totp === undefined ? [] : [totp])];
  }
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
    method.kind === 'form' || method.kind === 'browser'
      ? [pageLogin(method).username]
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
  if (method.kind === 'form' || method.kind === 'browser') {
    const page = pageLogin(method);
    const values = {
      url: text(page.url),
      username: loginValue(page.username),
      password: loginValue(page.password),
      totp: page.totp === undefined ? undefined : loginValue(page.totp),
    };
    if (method.kind === 'browser') {
      const browser: BrowserLoginSpec<LoginValue> = { ...method.browser, ...values };
      return { kind: 'browser', browser };
    }
    const form: FormLoginSpec<LoginValue> = { ...method.form, ...values };
    return { kind: 'form', form };
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

/** What a form and a browser login share: the page, who logs in, and how. */
function pageLogin<V>(
  method: Extract<LoginMethodSpec<V>, { kind: 'form' | 'browser' }>,
): BrowserLoginSpec<V> | FormLoginSpec<V> {
  return method.kind === 'form' ? method.form : method.browser;
}

/** The login template of a login that runs one. */
export function loginTemplatePath(login: Login): string | undefined {
  return login.method.kind === 'template' ? login.method.template : undefined;
}

/** How a login is described to the user: `template login.yaml`, `form login at …`, `browser login at …`, `OAuth 2.0 …`. */
export function loginKind(login: Login): string {
  switch (login.method.kind) {
    case 'template':
      return `template ${login.method.template}`;
    case 'form':
      return `${login.method.form.json === undefined ? 'form' : 'JSON'} login at ${String(login.method.form.url)}`;
    case 'browser':
      return `browser login at ${String(login.method.browser.url)}`;
    case 'oauth2':
      return `OAuth 2.0 ${login.method.oauth2.grant.kind} grant at ${login.method.oauth2.tokenUrl}`;
  }
}
