import type { CookiePair, QueryParam } from '../http/index.js';
import type { GoRegex } from '../regex/index.js';
import type { Path, Position } from '../source/index.js';
import type { DomainItem } from './host.js';
import type { LoginValue, TotpOptions } from './totp.js';

export const SECRET_TYPES = ['basicauth', 'bearertoken', 'header', 'cookie', 'query'] as const;
export type SecretType = (typeof SECRET_TYPES)[number];

/** A string field as the file gives it: a literal, or a reference to a value kept elsewhere. */
export type ValueSource =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'cmd'; readonly argv: readonly string[] }
  /** A one-time code of the base32 secret `secret` gives, made each time a login runs. */
  | { readonly kind: 'totp'; readonly secret: ValueSource; readonly options: TotpOptions };

/** A string field before references are resolved: what it is, and where, for error messages. */
export interface Sourced {
  readonly source: ValueSource;
  readonly pos: Position;
  readonly path: Path;
}

export interface KeyValue<V> {
  readonly key: V;
  readonly value: V;
}

export type CookieSpec<V> =
  | { readonly kind: 'pair'; readonly key: V; readonly value: V }
  | { readonly kind: 'raw'; readonly raw: V };

/**
 * The secret of an entry, as declared: one variant per `type`, each with exactly its own fields, so
 * a basicauth secret cannot carry a token. `V` is `Sourced` as parsed and `string` once resolved; in
 * dynamic entries the strings may hold `{{name}}` placeholders.
 */
export type SecretSpec<V> =
  | { readonly type: 'basicauth'; readonly username: V; readonly password: V }
  | { readonly type: 'bearertoken'; readonly token: V }
  | { readonly type: 'header'; readonly headers: readonly KeyValue<V>[] }
  | { readonly type: 'query'; readonly params: readonly KeyValue<V>[] }
  | { readonly type: 'cookie'; readonly cookies: readonly CookieSpec<V>[] };

/** A secret ready to apply: raw cookies parsed, placeholders filled. */
export type Credential =
  | { readonly type: 'basicauth'; readonly username: string; readonly password: string }
  | { readonly type: 'bearertoken'; readonly token: string }
  | {
      readonly type: 'header';
      readonly headers: readonly { readonly name: string; readonly value: string }[];
    }
  | { readonly type: 'query'; readonly params: readonly QueryParam[] }
  | { readonly type: 'cookie'; readonly cookies: readonly CookiePair[] };

/** Which hosts an entry applies to: exactly one of `domains` or `domains-regex`. */
export type Scope =
  | { readonly kind: 'domains'; readonly domains: readonly DomainItem[] }
  | { readonly kind: 'domains-regex'; readonly patterns: readonly GoRegex[] };

/** Where an entry is written; `secret` is set for the items of a dynamic entry's `secrets:` list. */
export interface EntryOrigin {
  readonly file: string;
  readonly section: 'static' | 'dynamic';
  readonly index: number;
  readonly secret?: number;
  readonly pos: Position;
}

export function originLabel(origin: EntryOrigin): string {
  const secret = origin.secret === undefined ? '' : `.secrets[${origin.secret}]`;
  return `${origin.section}[${origin.index}]${secret}`;
}

export interface SecretDecl<V> {
  readonly origin: EntryOrigin;
  readonly scope: Scope;
  readonly spec: SecretSpec<V>;
}

export interface Variable<V> {
  readonly name: string;
  readonly value: V;
}

/** Re-login settings of a dynamic entry (`reauth:`). */
export interface Reauth {
  /** Response statuses that mean the session was lost. */
  readonly status: readonly number[];
  /** A pattern whose presence in a response means the session was lost. */
  readonly loggedOutRegex: GoRegex | undefined;
  /** At most this many re-logins triggered by responses, per entry and run. */
  readonly max: number;
  /** Log in again when the session is older than this many milliseconds. */
  readonly everyMs: number | undefined;
}

/** Which fields of a login form take the credentials, when their names are not guessed. */
export interface FormFields {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly totp: string | undefined;
}

/** What proves a form login worked; unset: not back on a password form, and a new cookie. */
export interface FormSuccess {
  readonly status: readonly number[];
  readonly regex: GoRegex | undefined;
  /** A pattern the URL of the last page must match. */
  readonly url: GoRegex | undefined;
  /** A cookie the login must set. */
  readonly cookie: string | undefined;
}

/** A form login (`login:`): the page's form filled and submitted, or a JSON login API. */
export interface FormLoginSpec<V> {
  readonly url: V;
  readonly username: V;
  readonly password: V;
  readonly totp: V | undefined;
  /** The form to fill: its id, name, or a text its action contains; unset: the one with a password field. */
  readonly form: string | undefined;
  readonly fields: FormFields;
  readonly success: FormSuccess | undefined;
  /** A JSON login API: the body (with {{username}}, {{password}}, {{totp}}) and where the token is. */
  readonly json: { readonly body: string; readonly token: string | undefined } | undefined;
}

/**
 * A browser login (`login: {browser: true}`): the page opened in Chromium, its form (built by
 * JavaScript or not) filled and submitted, a one-time-code step answered, redirects to the hosts of
 * `allow` followed (an identity provider); the browser's cookies and storage are the session.
 */
export interface BrowserLoginSpec<V> extends Omit<FormLoginSpec<V>, 'json'> {
  /** Hosts the login may go to besides the entry's scope and the login page's host. */
  readonly allow: readonly DomainItem[];
}

export const OAUTH2_GRANTS = ['client_credentials', 'password', 'refresh_token'] as const;
export type OAuth2Grant = (typeof OAUTH2_GRANTS)[number];

/** An OAuth 2.0 token request (`oauth2:`); the grant's own fields are exactly those it needs. */
export interface OAuth2Spec<V> {
  readonly tokenUrl: V;
  readonly clientId: V;
  readonly clientSecret: V | undefined;
  readonly scope: string | undefined;
  /** How the client authenticates; unset: basic, then body when the server refuses basic. */
  readonly authMethod: 'basic' | 'body' | undefined;
  readonly grant:
    | { readonly kind: 'client_credentials' }
    | { readonly kind: 'password'; readonly username: V; readonly password: V }
    | { readonly kind: 'refresh_token'; readonly refreshToken: V };
}

/** How a dynamic entry logs in. */
export type LoginMethodSpec<V> =
  | { readonly kind: 'template'; readonly text: string; readonly pos: Position }
  | { readonly kind: 'form'; readonly form: FormLoginSpec<V> }
  | { readonly kind: 'browser'; readonly browser: BrowserLoginSpec<V> }
  | { readonly kind: 'oauth2'; readonly oauth2: OAuth2Spec<V> };

/**
 * A request that proves a secret good (`verify:`): of a dynamic entry, after each login; of a
 * static entry, before its first request; of both, again every `everyMs`.
 */
export interface Verify {
  readonly url: string;
  readonly status: readonly number[];
  readonly regex: GoRegex | undefined;
  readonly everyMs: number | undefined;
}

export interface DynamicDecl<V> {
  readonly origin: EntryOrigin;
  readonly method: LoginMethodSpec<V>;
  readonly verify: Verify | undefined;
  readonly variables: readonly Variable<V>[];
  readonly input: V | undefined;
  readonly reauth: Reauth | undefined;
  /** The inline secret (if any) first, then the `secrets:` items. */
  readonly secrets: readonly SecretDecl<V>[];
}

/** A static entry as written: its secret, and what proves the secret good before it is used. */
export interface StaticDecl<V> extends SecretDecl<V> {
  readonly verify: Verify | undefined;
}

export interface SecretFileDecl<V> {
  readonly file: string;
  readonly static: readonly StaticDecl<V>[];
  readonly dynamic: readonly DynamicDecl<V>[];
}

// --- the loaded, ready-to-use form ---------------------------------------------------------------

export interface StaticSecret {
  readonly kind: 'static';
  readonly origin: EntryOrigin;
  readonly scope: Scope;
  readonly credential: Credential;
  /** Checked before the first request that would carry the secret; unset: sent without a check. */
  readonly verify?: Verify | undefined;
}

/** One secret of a dynamic entry: filled from its login's session values when first needed. */
export interface DynamicSecret {
  readonly kind: 'dynamic';
  readonly origin: EntryOrigin;
  readonly scope: Scope;
  /** The templated secret; its strings may hold `{{name}}` placeholders. */
  readonly spec: SecretSpec<string>;
  readonly login: Login;
}

export type ScopedSecret = StaticSecret | DynamicSecret;

/** How a loaded login runs: a template (its absolute path), a form, a browser, or an OAuth 2.0 token request. */
export type LoginMethod =
  | { readonly kind: 'template'; readonly template: string }
  | { readonly kind: 'form'; readonly form: FormLoginSpec<LoginValue> }
  | { readonly kind: 'browser'; readonly browser: BrowserLoginSpec<LoginValue> }
  | { readonly kind: 'oauth2'; readonly oauth2: OAuth2Spec<string> };

/** A dynamic entry's login: the run whose values fill its secrets. */
export interface Login {
  readonly origin: EntryOrigin;
  readonly method: LoginMethod;
  readonly verify: Verify | undefined;
  /** A `{totp: …}` value is a code made when the login runs. */
  readonly variables: readonly { readonly name: string; readonly value: LoginValue }[];
  /** The target the login runs against; undefined: the origin of the first matching request. */
  readonly input: string | undefined;
  readonly reauth: Reauth | undefined;
  /** Every `{{name}}` its secrets use, in first-use order; each must come out of the login. */
  readonly placeholders: readonly string[];
  readonly secrets: readonly DynamicSecret[];
}

/** Every entry of one or more secret files, in matching order. */
export interface SecretSet {
  readonly entries: readonly ScopedSecret[];
  readonly logins: readonly Login[];
}
