import { GoRegex, RegexSyntaxError } from '../regex/index.js';
import type { Decoder, MapEntry, MapNode, Path, SourceNode } from '../source/index.js';
import { decodeDomains, decodeValue, type Fields, parseDuration } from './decode.js';
import type { DomainItem } from './host.js';
import {
  type BrowserLoginSpec,
  type FormLoginSpec,
  type FormSuccess,
  type LoginMethodSpec,
  OAUTH2_GRANTS,
  type OAuth2Grant,
  type OAuth2Spec,
  type Sourced,
  type Verify,
} from './model.js';

type MethodKey = 'template' | 'login' | 'oauth2';

/** How a dynamic entry logs in: exactly one of `template:`, `login:` and `oauth2:`. */
export function decodeLoginMethod(
  d: Decoder,
  map: MapNode,
  f: Fields<MethodKey>,
  path: Path,
): LoginMethodSpec<Sourced> | undefined {
  const given = (['template', 'login', 'oauth2'] as const).filter((k) => f[k] !== undefined);
  if (given.length === 0) {
    d.error(
      map,
      path,
      'missing "template": the login template whose extractors fill this secret (or log in without one: login: {url, username, password} for a form, oauth2: {token-url, …} for OAuth 2.0)',
    );
    return undefined;
  }
  if (given.length > 1) {
    const second = f[given[1] as MethodKey] as MapEntry;
    d.error(
      second.key,
      [...path, given[1] as string],
      `an entry logs in one way: give one of template, login, oauth2, not ${given.join(' and ')}`,
    );
    return undefined;
  }
  if (f.template !== undefined) {
    const text = d.text(f.template.value, [...path, 'template'], 'the path of the login template');
    return text === undefined ? undefined : { kind: 'template', text, pos: f.template.value.pos };
  }
  if (f.login !== undefined) return decodeFormLogin(d, f.login.value, [...path, 'login']);
  if (f.oauth2 !== undefined) {
    const oauth2 = decodeOAuth2(d, f.oauth2.value, [...path, 'oauth2']);
    return oauth2 === undefined ? undefined : { kind: 'oauth2', oauth2 };
  }
  return undefined;
}

const FORM_KEYS = [
  'url',
  'username',
  'password',
  'totp',
  'form',
  'fields',
  'success',
  'json',
  'browser',
  'allow',
] as const;

/** `login:`: a form sent by keyhole, a JSON login API, or (`browser: true`) a page driven in Chromium. */
function decodeFormLogin(
  d: Decoder,
  node: SourceNode,
  path: Path,
): Extract<LoginMethodSpec<Sourced>, { kind: 'form' | 'browser' }> | undefined {
  const map = d.map(node, path, 'a mapping with url, username and password');
  if (map === undefined) return undefined;
  const f = d.fields(map, path, FORM_KEYS);
  let ok = true;
  const browser = f.browser === undefined ? false : d.bool(f.browser.value, [...path, 'browser']);
  if (browser === undefined) ok = false;
  if (browser === true && f.json !== undefined) {
    d.error(
      f.json.key,
      [...path, 'json'],
      'json: posts to a login API without a browser; remove it (a browser login fills the page) or remove browser: true',
    );
    ok = false;
  }
  let allow: readonly DomainItem[] = [];
  if (f.allow !== undefined && browser !== undefined) {
    if (!browser) {
      d.error(
        f.allow.key,
        [...path, 'allow'],
        'allow: names the hosts a browser login may go to (an identity provider); it needs browser: true',
      );
      ok = false;
    } else {
      const scope = decodeDomains(d, f.allow.value, [...path, 'allow']);
      if (scope?.kind === 'domains') allow = scope.domains;
      else ok = false;
    }
  }
  const need = (key: 'url' | 'username' | 'password', example: string): Sourced | undefined => {
    const entry = f[key];
    if (entry === undefined) {
      d.error(map, path, `missing "${key}" (${example})`);
      return undefined;
    }
    return decodeValue(d, entry.value, [...path, key]);
  };
  const url = need('url', 'url: https://app.example.com/login, the page with the login form');
  const username = need('username', 'username: alice');
  const password = need('password', 'password: {env: APP_PASSWORD}');
  const totp = f.totp === undefined ? undefined : decodeValue(d, f.totp.value, [...path, 'totp']);
  if (totp !== undefined && totp.source.kind !== 'totp') {
    d.error(
      f.totp?.value ?? map,
      [...path, 'totp'],
      'give the one-time code as {totp: BASE32-SECRET} or {totp: {env: NAME}}',
    );
    ok = false;
  }
  const form =
    f.form === undefined
      ? undefined
      : d.text(f.form.value, [...path, 'form'], 'the id, name or action of the form');
  const fields = f.fields === undefined ? noFields : decodeFields(d, f.fields.value, [...path, 'fields']);
  const success =
    f.success === undefined ? undefined : decodeSuccess(d, f.success.value, [...path, 'success']);
  const json = f.json === undefined ? undefined : decodeJson(d, f.json.value, [...path, 'json']);
  if (url?.source.kind === 'literal')
    ok = checkUrl(d, f.url?.value ?? map, [...path, 'url'], url.source.text) && ok;
  if (f.form !== undefined && form === undefined) ok = false;
  if (fields === undefined || (f.success !== undefined && success === undefined)) ok = false;
  if (f.json !== undefined && json === undefined) ok = false;
  if (f.totp !== undefined && totp === undefined) ok = false;
  if (!ok || url === undefined || username === undefined || password === undefined || fields === undefined)
    return undefined;
  if (browser === true) {
    const spec: BrowserLoginSpec<Sourced> = { url, username, password, totp, form, fields, success, allow };
    return { kind: 'browser', browser: spec };
  }
  return { kind: 'form', form: { url, username, password, totp, form, fields, success, json } };
}

const noFields = { username: undefined, password: undefined, totp: undefined };

function decodeFields(
  d: Decoder,
  node: SourceNode,
  path: Path,
): FormLoginSpec<Sourced>['fields'] | undefined {
  const map = d.map(node, path, 'a mapping of username, password, totp: the names of the form fields');
  if (map === undefined) return undefined;
  const f = d.fields(map, path, ['username', 'password', 'totp'] as const);
  const name = (key: 'username' | 'password' | 'totp') => {
    const entry = f[key];
    return entry === undefined ? undefined : d.text(entry.value, [...path, key], 'the name of a form field');
  };
  return { username: name('username'), password: name('password'), totp: name('totp') };
}

function decodeSuccess(d: Decoder, node: SourceNode, path: Path): FormSuccess | undefined {
  const map = d.map(node, path, 'a mapping of status, regex, url, cookie');
  if (map === undefined) return undefined;
  const f = d.fields(map, path, ['status', 'regex', 'url', 'cookie'] as const);
  if (map.entries.length === 0) {
    d.error(map, path, 'say what shows the login worked: status, regex, url or cookie');
    return undefined;
  }
  const status = f.status === undefined ? [] : statusList(d, f.status.value, [...path, 'status']);
  const regex = f.regex === undefined ? undefined : regexField(d, f.regex.value, [...path, 'regex']);
  const url = f.url === undefined ? undefined : regexField(d, f.url.value, [...path, 'url']);
  const cookie =
    f.cookie === undefined ? undefined : d.text(f.cookie.value, [...path, 'cookie'], 'a cookie name');
  if (status === undefined) return undefined;
  if ((f.regex !== undefined && regex === undefined) || (f.url !== undefined && url === undefined))
    return undefined;
  if (f.cookie !== undefined && cookie === undefined) return undefined;
  return { status, regex, url, cookie };
}

function decodeJson(d: Decoder, node: SourceNode, path: Path): FormLoginSpec<Sourced>['json'] {
  const map = d.map(
    node,
    path,
    'a mapping with body (the JSON sent) and token (where the token is in the answer)',
  );
  if (map === undefined) return undefined;
  const f = d.fields(map, path, ['body', 'token'] as const);
  if (f.body === undefined) {
    d.error(map, path, 'missing "body", e.g. body: \'{"user": "{{username}}", "password": "{{password}}"}\'');
    return undefined;
  }
  const body = d.text(f.body.value, [...path, 'body'], 'the JSON body, with {{username}} and {{password}}');
  if (body === undefined) return undefined;
  try {
    JSON.parse(body.replace(/\{\{\s*(username|password|totp)\s*\}\}/g, 'x'));
  } catch (error) {
    d.error(f.body.value, [...path, 'body'], `the body is not JSON: ${(error as Error).message}`);
    return undefined;
  }
  const token =
    f.token === undefined
      ? undefined
      : d.text(f.token.value, [...path, 'token'], 'a JSON path such as data.access_token');
  if (f.token !== undefined && token === undefined) return undefined;
  return { body, token };
}

const OAUTH2_KEYS = [
  'token-url',
  'grant',
  'client-id',
  'client-secret',
  'scope',
  'auth-method',
  'username',
  'password',
  'refresh-token',
] as const;
const GRANT_FIELDS: Record<OAuth2Grant, readonly (typeof OAUTH2_KEYS)[number][]> = {
  client_credentials: [],
  password: ['username', 'password'],
  refresh_token: ['refresh-token'],
};

function decodeOAuth2(d: Decoder, node: SourceNode, path: Path): OAuth2Spec<Sourced> | undefined {
  const map = d.map(node, path, 'a mapping with token-url, grant, client-id and client-secret');
  if (map === undefined) return undefined;
  const f = d.fields(map, path, OAUTH2_KEYS);
  const value = (key: (typeof OAUTH2_KEYS)[number], example?: string): Sourced | undefined => {
    const entry = f[key];
    if (entry === undefined) {
      if (example !== undefined) d.error(map, path, `missing "${key}" (${example})`);
      return undefined;
    }
    return decodeValue(d, entry.value, [...path, key]);
  };
  let ok = true;
  const tokenUrl = value('token-url', 'token-url: https://idp.example.com/oauth2/token');
  const clientId = value('client-id', 'client-id: scanner');
  const clientSecret = value('client-secret');
  const grantText =
    f.grant === undefined ? undefined : d.text(f.grant.value, [...path, 'grant'], OAUTH2_GRANTS.join(', '));
  const grantKind = OAUTH2_GRANTS.find((g) => g === grantText?.replace('-', '_'));
  if (f.grant === undefined) {
    d.error(map, path, `missing "grant"; give one of ${OAUTH2_GRANTS.join(', ')}`);
    ok = false;
  } else if (grantKind === undefined) {
    if (grantText !== undefined)
      d.error(
        f.grant.value,
        [...path, 'grant'],
        `unknown grant "${grantText}"; give one of ${OAUTH2_GRANTS.join(', ')}`,
      );
    ok = false;
  }
  if (grantKind !== undefined) {
    for (const key of ['username', 'password', 'refresh-token'] as const) {
      const entry = f[key];
      if (entry !== undefined && !GRANT_FIELDS[grantKind].includes(key))
        d.error(
          entry.key,
          [...path, key],
          `"${key}" is not used by grant: ${grantKind}; remove it (or change the grant)`,
        );
    }
  }
  const grant = ((): OAuth2Spec<Sourced>['grant'] | undefined => {
    switch (grantKind) {
      case 'client_credentials':
        if (clientSecret === undefined && f['client-secret'] === undefined) {
          d.error(
            map,
            path,
            'missing "client-secret", which grant: client_credentials needs (client-secret: {env: CLIENT_SECRET})',
          );
          return undefined;
        }
        return { kind: grantKind };
      case 'password': {
        const username = value('username', 'grant: password needs username: alice');
        const password = value('password', 'grant: password needs password: {env: PASSWORD}');
        return username && password ? { kind: grantKind, username, password } : undefined;
      }
      case 'refresh_token': {
        const refreshToken = value(
          'refresh-token',
          'grant: refresh_token needs refresh-token: {env: REFRESH_TOKEN}',
        );
        return refreshToken ? { kind: grantKind, refreshToken } : undefined;
      }
      case undefined:
        return undefined;
    }
  })();
  const scope =
    f.scope === undefined
      ? undefined
      : d.text(f.scope.value, [...path, 'scope'], 'the scopes, space-separated');
  let authMethod: OAuth2Spec<Sourced>['authMethod'];
  if (f['auth-method'] !== undefined) {
    const text = d.text(f['auth-method'].value, [...path, 'auth-method'], 'basic or body');
    if (text === 'basic' || text === 'body') authMethod = text;
    else {
      if (text !== undefined)
        d.error(
          f['auth-method'].value,
          [...path, 'auth-method'],
          `unknown auth-method "${text}"; give basic or body`,
        );
      ok = false;
    }
  }
  if (tokenUrl?.source.kind === 'literal')
    ok = checkUrl(d, f['token-url']?.value ?? map, [...path, 'token-url'], tokenUrl.source.text, true) && ok;
  if (f['client-secret'] !== undefined && clientSecret === undefined) ok = false;
  if (!ok || tokenUrl === undefined || clientId === undefined || grant === undefined) return undefined;
  return { tokenUrl, clientId, clientSecret, scope, authMethod, grant };
}

/**
 * A login URL: absolute http(s). A token URL (`secret`) carries a client secret: over plain http
 * only to this machine.
 */
function checkUrl(d: Decoder, node: SourceNode, path: Path, text: string, secret = false): boolean {
  const problem = urlProblem(text, secret);
  if (problem !== undefined) d.error(node, path, problem);
  return problem === undefined;
}

export function urlProblem(text: string, secret: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL; give it with its scheme, e.g. https://app.example.com/login`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `give an http or https URL, not ${url.protocol}`;
  if (secret && url.protocol === 'http:' && !isLoopback(url.hostname))
    return 'the client secret would cross the network in clear text: give an https token URL (http is only for this machine: 127.0.0.1, ::1, localhost)';
  return undefined;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const VERIFY_KEYS = ['url', 'status', 'regex', 'every'] as const;

/**
 * A `verify:` mapping. `outside` says why a URL is not within the entry's scope (undefined when it
 * is), so a check that would carry the secret elsewhere is refused here, at its position.
 */
export function decodeVerify(
  d: Decoder,
  node: SourceNode,
  path: Path,
  outside?: (url: URL) => string | undefined,
): Verify | undefined {
  const map = d.map(node, path, 'a mapping of url, status, regex, every');
  if (map === undefined) return undefined;
  const f = d.fields(map, path, VERIFY_KEYS);
  if (f.url === undefined) {
    d.error(
      map,
      path,
      'missing "url": a page only a logged-in user sees, e.g. url: https://app.example.com/account',
    );
    return undefined;
  }
  const url = d.text(f.url.value, [...path, 'url'], 'an absolute http(s) URL');
  if (url === undefined || !checkUrl(d, f.url.value, [...path, 'url'], url)) return undefined;
  const problem = outside?.(new URL(url));
  if (problem !== undefined) {
    d.error(f.url.value, [...path, 'url'], problem);
    return undefined;
  }
  const status = f.status === undefined ? [] : statusList(d, f.status.value, [...path, 'status']);
  const regex = f.regex === undefined ? undefined : regexField(d, f.regex.value, [...path, 'regex']);
  let everyMs: number | undefined;
  if (f.every !== undefined) {
    const text = d.text(f.every.value, [...path, 'every'], 'a duration such as 5m');
    everyMs = text === undefined ? undefined : parseDuration(text);
    if (text !== undefined && (everyMs === undefined || everyMs < 1000)) {
      d.error(
        f.every.value,
        [...path, 'every'],
        `invalid duration "${text}"; write at least 1s, e.g. 30s, 5m or 1h`,
      );
      return undefined;
    }
    if (everyMs === undefined) return undefined;
  }
  if (status === undefined || (f.regex !== undefined && regex === undefined)) return undefined;
  return { url, status: status.length === 0 && regex === undefined ? [200] : status, regex, everyMs };
}

function statusList(d: Decoder, node: SourceNode, path: Path): number[] | undefined {
  const items = node.kind === 'seq' ? node.items : [node];
  if (items.length === 0) {
    d.error(node, path, 'must not be empty; give statuses such as [200]');
    return undefined;
  }
  const out: number[] = [];
  for (const [i, item] of items.entries()) {
    const code = d.integer(item, node.kind === 'seq' ? [...path, i] : path, { min: 100, max: 599 });
    if (code === undefined) return undefined;
    out.push(code);
  }
  return out;
}

function regexField(d: Decoder, node: SourceNode, path: Path): GoRegex | undefined {
  const text = d.text(node, path, 'a regular expression (RE2 syntax)');
  if (text === undefined) return undefined;
  const regex = GoRegex.compile(text);
  if (regex instanceof RegexSyntaxError) {
    d.error(node, path, `${regex.message} (RE2 syntax: no lookaround or backreferences)`);
    return undefined;
  }
  return regex;
}
