import { GoRegex, RegexSyntaxError } from '../regex/index.js';
import {
  Decoder,
  formatPath,
  type MapEntry,
  type MapNode,
  type ParsedSource,
  type Path,
  type Position,
  type SourceNode,
} from '../source/index.js';
import { hasPlaceholder, secretStrings } from './credential.js';
import { decodeLoginMethod, decodeVerify } from './decode-login.js';
import { type DomainItem, parseDomainItem } from './host.js';
import {
  type CookieSpec,
  type DynamicDecl,
  type EntryOrigin,
  type KeyValue,
  type LoginMethodSpec,
  type Reauth,
  type Scope,
  SECRET_TYPES,
  type SecretDecl,
  type SecretFileDecl,
  type SecretSpec,
  type SecretType,
  type Sourced,
  type StaticDecl,
  type ValueSource,
  type Variable,
} from './model.js';
import { DEFAULT_TOTP, TOTP_ALGORITHMS } from './totp.js';
import { outsideScopes } from './verify.js';

const SECRET_KEYS = [
  'type',
  'domains',
  'domains-regex',
  'username',
  'password',
  'token',
  'headers',
  'params',
  'cookies',
] as const;
const STATIC_KEYS = [...SECRET_KEYS, 'verify'] as const;
const DYNAMIC_KEYS = [
  ...SECRET_KEYS,
  'template',
  'login',
  'oauth2',
  'verify',
  'variables',
  'input',
  'secrets',
  'reauth',
] as const;
const TOP_KEYS = ['id', 'info', 'static', 'dynamic'] as const;
const INFO_KEYS = ['name', 'author', 'severity', 'description'] as const;

type SecretKey = (typeof SECRET_KEYS)[number];

/** The fields each type takes; every other type-bound field on an entry of that type is an error. */
const TYPE_FIELDS: Record<SecretType, readonly SecretKey[]> = {
  basicauth: ['username', 'password'],
  bearertoken: ['token'],
  header: ['headers'],
  query: ['params'],
  cookie: ['cookies'],
};
const TYPE_BOUND: readonly SecretKey[] = ['username', 'password', 'token', 'headers', 'params', 'cookies'];

/**
 * Reads a parsed secret file into its declared model, reporting every problem with its position
 * and field path. Pure: references are not resolved and templates not looked at here. Entries with
 * errors are left out of the result, so later checks can still look at the others; the file is
 * valid only when the diagnostics hold no error.
 */
export { decodeValue, type Fields };

export function decodeSecretFile(parsed: ParsedSource): SecretFileDecl<Sourced> | undefined {
  const d = new Decoder(parsed.diagnostics);
  const file = parsed.file;
  const root = parsed.root;
  if (root === undefined) {
    if (!parsed.diagnostics.hasErrors) {
      d.diagnostics.error(
        { line: 1, col: 1, offset: 0 },
        [],
        'the secret file is empty; give static: or dynamic: entries',
      );
    }
    return undefined;
  }
  const top = d.map(root, [], 'a mapping with static: and/or dynamic:');
  if (top === undefined) return undefined;
  const fields = d.fields(top, [], TOP_KEYS);
  if (fields.info !== undefined) decodeInfo(d, fields.info.value);
  if (fields.id !== undefined) d.scalar(fields.id.value, ['id'], 'a text id');

  const staticEntries = fields.static === undefined ? [] : entriesOf(d, fields.static, 'static');
  const dynamicEntries = fields.dynamic === undefined ? [] : entriesOf(d, fields.dynamic, 'dynamic');
  if (staticEntries.length === 0 && dynamicEntries.length === 0 && !d.diagnostics.hasErrors) {
    d.error(top, [], 'the file has no secrets; give at least one entry under static: or dynamic:');
  }
  const result: SecretFileDecl<Sourced> = {
    file,
    static: staticEntries.flatMap(({ node, index }) => {
      const origin: EntryOrigin = { file, section: 'static', index, pos: node.pos };
      const entry = decodeStatic(d, node, ['static', index], origin);
      if (entry !== undefined) warnPlaceholders(d, entry);
      return entry === undefined ? [] : [entry];
    }),
    dynamic: dynamicEntries.flatMap(({ node, index }) => {
      const entry = decodeDynamic(d, node, index, file);
      return entry === undefined ? [] : [entry];
    }),
  };
  return result;
}

/** `{{name}}` is only filled in dynamic entries; in a static one it would be sent as written. */
function warnPlaceholders(d: Decoder, entry: SecretDecl<Sourced>): void {
  for (const value of secretStrings(entry.spec)) {
    if (value.source.kind === 'literal' && hasPlaceholder(value.source.text)) {
      d.diagnostics.warning(
        value.pos,
        value.path,
        'static values are sent as written: {{…}} is only filled from a login in dynamic entries',
      );
    }
  }
}

function decodeInfo(d: Decoder, node: SourceNode): void {
  const info = d.map(node, ['info'], 'a mapping of name, author, severity, description');
  if (info !== undefined) d.fields(info, ['info'], INFO_KEYS);
}

function entriesOf(d: Decoder, entry: MapEntry, section: string): { node: SourceNode; index: number }[] {
  if (entry.value.kind === 'null') return [];
  const list = d.list(entry.value, [section], `a list of ${section} entries`);
  return list === undefined ? [] : list.items.map((node, index) => ({ node, index }));
}

type Fields<K extends string> = Partial<Record<K, MapEntry>>;

function decodeSecret(
  d: Decoder,
  node: SourceNode,
  path: Path,
  origin: EntryOrigin,
  what: string,
): SecretDecl<Sourced> | undefined {
  const map = d.map(node, path, `a ${what} entry (a mapping with type, domains and the type's fields)`);
  if (map === undefined) return undefined;
  return secretFromFields(d, map, d.fields(map, path, SECRET_KEYS), path, origin);
}

/** A static entry: its secret, and the `verify:` that proves it good before it is used. */
function decodeStatic(
  d: Decoder,
  node: SourceNode,
  path: Path,
  origin: EntryOrigin,
): StaticDecl<Sourced> | undefined {
  const map = d.map(node, path, "a static entry (a mapping with type, domains and the type's fields)");
  if (map === undefined) return undefined;
  const f = d.fields(map, path, STATIC_KEYS);
  const secret = secretFromFields(d, map, f, path, origin);
  if (f.verify === undefined) return secret === undefined ? undefined : { ...secret, verify: undefined };
  const outside = secret === undefined ? undefined : outsideScopes([secret.scope], 'this entry');
  const verify = decodeVerify(d, f.verify.value, [...path, 'verify'], outside);
  return secret === undefined || verify === undefined ? undefined : { ...secret, verify };
}

function secretFromFields(
  d: Decoder,
  map: MapNode,
  f: Fields<SecretKey>,
  path: Path,
  origin: EntryOrigin,
  loginKind?: LoginMethodSpec<Sourced>['kind'],
): SecretDecl<Sourced> | undefined {
  const scope = decodeScope(d, map, f, path);
  const type = decodeType(d, map, f, path);
  if (type === undefined) return undefined;
  for (const key of TYPE_BOUND) {
    const entry = f[key];
    if (entry !== undefined && !TYPE_FIELDS[type].includes(key)) {
      const owner = (Object.keys(TYPE_FIELDS) as SecretType[]).find((t) => TYPE_FIELDS[t].includes(key));
      d.error(
        entry.key,
        [...path, key],
        `"${key}" is only used with type: ${owner}; this entry is type: ${type}, so remove it (or change the type)`,
      );
    }
  }
  const spec = sessionDefault(type, f, loginKind, map.pos, path) ?? decodeSpec(d, map, f, path, type);
  if (scope === undefined || spec === undefined || !refuseOneTimeCodes(d, spec)) return undefined;
  return { origin, scope, spec };
}

/**
 * What a login without a template gives when the secret leaves it out: a form login's `type:
 * cookie` takes every cookie it set (no `cookies:`); an OAuth 2.0 `type: bearertoken` sends
 * `{{access_token}}` (no `token:`).
 */
function sessionDefault(
  type: SecretType,
  f: Fields<SecretKey>,
  loginKind: LoginMethodSpec<Sourced>['kind'] | undefined,
  pos: Position,
  path: Path,
): SecretSpec<Sourced> | undefined {
  if (type === 'cookie' && f.cookies === undefined && loginKind === 'form') return { type, cookies: [] };
  if (type === 'bearertoken' && f.token === undefined && loginKind === 'oauth2')
    return {
      type,
      token: { source: { kind: 'literal', text: '{{access_token}}' }, pos, path: [...path, 'token'] },
    };
  return undefined;
}

function decodeType(d: Decoder, map: MapNode, f: Fields<SecretKey>, path: Path): SecretType | undefined {
  const names = SECRET_TYPES.join(', ');
  if (f.type === undefined) {
    const bound = TYPE_BOUND.find((k) => f[k] !== undefined);
    const owner =
      bound && (Object.keys(TYPE_FIELDS) as SecretType[]).find((t) => TYPE_FIELDS[t].includes(bound));
    const hint = owner === undefined ? '' : ` (the "${bound}" field suggests type: ${owner})`;
    d.error(map, [...path, 'type'], `missing "type"; give one of ${names}${hint}`);
    return undefined;
  }
  const text = d.text(f.type.value, [...path, 'type'], `one of ${names}`);
  if (text === undefined) return undefined;
  const type = SECRET_TYPES.find((t) => t === text.toLowerCase());
  if (type === undefined) {
    const aliases: Record<string, SecretType> = {
      basic: 'basicauth',
      bearer: 'bearertoken',
      bearerauth: 'bearertoken',
      headers: 'header',
      headersauth: 'header',
      cookies: 'cookie',
      cookiesauth: 'cookie',
      params: 'query',
      queryauth: 'query',
    };
    const alias = aliases[text.toLowerCase()];
    const hint = alias === undefined ? '' : ` (did you mean "${alias}"?)`;
    d.error(f.type.value, [...path, 'type'], `unknown type "${text}"${hint}; give one of ${names}`);
  }
  return type;
}

function decodeScope(d: Decoder, map: MapNode, f: Fields<SecretKey>, path: Path): Scope | undefined {
  const domains = f.domains;
  const regexes = f['domains-regex'];
  if (domains !== undefined && regexes !== undefined) {
    d.error(
      regexes.key,
      [...path, 'domains-regex'],
      'domains and domains-regex are mutually exclusive; keep one (split the entry in two if you need both)',
    );
    return undefined;
  }
  if (domains !== undefined) return decodeDomains(d, domains.value, [...path, 'domains']);
  if (regexes !== undefined) return decodeRegexes(d, regexes.value, [...path, 'domains-regex']);
  d.error(
    map,
    path,
    'missing domains or domains-regex: say which hosts get this secret, e.g. domains: [app.example.com] or domains-regex: [".*\\\\.example\\\\.com"]',
  );
  return undefined;
}

export function decodeDomains(d: Decoder, node: SourceNode, path: Path): Scope | undefined {
  const list = d.nonEmptyList(node, path, 'a list of host names');
  if (list === undefined) return undefined;
  const domains: DomainItem[] = [];
  let ok = true;
  list.items.forEach((item, i) => {
    const text = d.text(item, [...path, i], 'a host name such as app.example.com or app.example.com:8443');
    if (text === undefined) {
      ok = false;
      return;
    }
    const parsed = parseDomainItem(text);
    if (!parsed.ok) {
      d.error(item, [...path, i], parsed.reason);
      ok = false;
      return;
    }
    if (parsed.warning !== undefined) d.warning(item, [...path, i], parsed.warning);
    domains.push(parsed.item);
  });
  return ok ? { kind: 'domains', domains } : undefined;
}

function decodeRegexes(d: Decoder, node: SourceNode, path: Path): Scope | undefined {
  const list = d.nonEmptyList(node, path, 'a list of regular expressions');
  if (list === undefined) return undefined;
  const patterns: GoRegex[] = [];
  let ok = true;
  list.items.forEach((item, i) => {
    const text = d.text(item, [...path, i], 'a regular expression (RE2 syntax)');
    if (text === undefined) {
      ok = false;
      return;
    }
    const regex = GoRegex.compileWhole(text, { caseInsensitive: true });
    if (regex instanceof RegexSyntaxError) {
      d.error(item, [...path, i], `${regex.message} (RE2 syntax: no lookaround or backreferences)`);
      ok = false;
      return;
    }
    patterns.push(regex);
  });
  return ok ? { kind: 'domains-regex', patterns } : undefined;
}

function decodeSpec(
  d: Decoder,
  map: MapNode,
  f: Fields<SecretKey>,
  path: Path,
  type: SecretType,
): SecretSpec<Sourced> | undefined {
  const need = (key: SecretKey, example: string): MapEntry | undefined => {
    const entry = f[key];
    if (entry === undefined) d.error(map, path, `missing "${key}", which type: ${type} needs (${example})`);
    return entry;
  };
  switch (type) {
    case 'basicauth': {
      const username = need('username', 'username: alice');
      const password = need('password', 'password: "…"; it may be empty: password: ""');
      const u = username && decodeValue(d, username.value, [...path, 'username']);
      const p =
        password &&
        decodeValue(d, password.value, [...path, 'password'], 'write password: "" for an empty password');
      return u && p ? { type, username: u, password: p } : undefined;
    }
    case 'bearertoken': {
      const token = need('token', 'token: eyJ…');
      const t = token && decodeValue(d, token.value, [...path, 'token']);
      return t ? { type, token: t } : undefined;
    }
    case 'header': {
      const headers = need('headers', 'headers: [{key: X-API-Key, value: …}]');
      const list = headers && decodeKeyValues(d, headers.value, [...path, 'headers'], 'headers');
      return list ? { type, headers: list } : undefined;
    }
    case 'query': {
      const params = need('params', 'params: [{key: api_key, value: …}]');
      const list = params && decodeKeyValues(d, params.value, [...path, 'params'], 'query parameters');
      return list ? { type, params: list } : undefined;
    }
    case 'cookie': {
      const cookies = need('cookies', 'cookies: [{key: session, value: …}] or [{raw: "session=…"}]');
      const list = cookies && decodeCookies(d, cookies.value, [...path, 'cookies']);
      return list ? { type, cookies: list } : undefined;
    }
  }
}

function decodeKeyValues(
  d: Decoder,
  node: SourceNode,
  path: Path,
  what: string,
): KeyValue<Sourced>[] | undefined {
  const list = d.nonEmptyList(node, path, `a list of ${what} ({key, value})`);
  if (list === undefined) return undefined;
  const out: KeyValue<Sourced>[] = [];
  let ok = true;
  list.items.forEach((item, i) => {
    const p = [...path, i];
    const map = d.map(item, p, 'a mapping with key and value');
    if (map === undefined) {
      ok = false;
      return;
    }
    const f = d.fields(map, p, ['key', 'value'] as const);
    const key = required(d, map, f.key, p, 'key');
    const value = required(d, map, f.value, p, 'value');
    if (key === undefined || value === undefined) ok = false;
    else out.push({ key, value });
  });
  return ok ? out : undefined;
}

function decodeCookies(d: Decoder, node: SourceNode, path: Path): CookieSpec<Sourced>[] | undefined {
  const list = d.nonEmptyList(node, path, 'a list of cookies ({key, value} or {raw})');
  if (list === undefined) return undefined;
  const out: CookieSpec<Sourced>[] = [];
  let ok = true;
  list.items.forEach((item, i) => {
    const p = [...path, i];
    const map = d.map(item, p, 'a mapping with key and value, or raw');
    if (map === undefined) {
      ok = false;
      return;
    }
    const f = d.fields(map, p, ['key', 'value', 'raw'] as const);
    if (f.raw !== undefined) {
      if (f.key !== undefined || f.value !== undefined) {
        d.error(f.raw.key, [...p, 'raw'], 'give either raw or key and value, not both');
        ok = false;
        return;
      }
      const raw = decodeValue(d, f.raw.value, [...p, 'raw']);
      if (raw === undefined) ok = false;
      else out.push({ kind: 'raw', raw });
      return;
    }
    if (f.key === undefined && f.value === undefined) {
      d.error(map, p, 'a cookie needs key and value, or raw (e.g. raw: "session=abc")');
      ok = false;
      return;
    }
    const key = required(d, map, f.key, p, 'key');
    const value = required(d, map, f.value, p, 'value');
    if (key === undefined || value === undefined) ok = false;
    else out.push({ kind: 'pair', key, value });
  });
  return ok ? out : undefined;
}

function required(
  d: Decoder,
  map: MapNode,
  entry: MapEntry | undefined,
  path: Path,
  key: string,
): Sourced | undefined {
  if (entry === undefined) {
    d.error(map, path, `missing "${key}"`);
    return undefined;
  }
  return decodeValue(d, entry.value, [...path, key]);
}

/**
 * A string field: a scalar (its source text) or a reference object `{env: NAME}`,
 * `{file: path}`, `{cmd: [argv…]}`.
 */
function decodeValue(d: Decoder, node: SourceNode, path: Path, nullHint?: string): Sourced | undefined {
  const at = (source: ValueSource): Sourced => ({ source, pos: node.pos, path });
  switch (node.kind) {
    case 'scalar':
      return at({ kind: 'literal', text: node.text });
    case 'null':
      d.error(node, path, `has no value${nullHint === undefined ? '; give a value' : `; ${nullHint}`}`);
      return undefined;
    case 'seq':
      d.error(
        node,
        path,
        'expected a text value or a reference ({env: NAME}, {file: path}, {cmd: [program, args…]}), found a list',
      );
      return undefined;
    case 'map':
      return decodeReference(d, node, path);
  }
}

const REFERENCE_KINDS = ['env', 'file', 'cmd', 'totp'] as const;
const TOTP_OPTIONS = ['digits', 'period', 'algorithm'] as const;

function decodeReference(d: Decoder, node: MapNode, path: Path): Sourced | undefined {
  const at = (source: ValueSource): Sourced => ({ source, pos: node.pos, path });
  const f = d.fields(node, path, [...REFERENCE_KINDS, ...TOTP_OPTIONS]);
  const given = REFERENCE_KINDS.filter((k) => f[k] !== undefined);
  if (given.length !== 1) {
    if (given.length > 1)
      d.error(node, path, `a reference takes exactly one of env, file, cmd, totp; found ${given.join(', ')}`);
    else if (node.entries.length === 0 || TOTP_OPTIONS.some((k) => f[k] !== undefined))
      d.error(
        node,
        path,
        'an empty reference; give {env: NAME}, {file: path}, {cmd: [program, args…]} or {totp: SECRET}',
      );
    return undefined;
  }
  if (f.totp === undefined) {
    for (const key of TOTP_OPTIONS) {
      const option = f[key];
      if (option !== undefined)
        d.error(option.key, [...path, key], `"${key}" is an option of {totp: …}; remove it here`);
    }
  }
  if (f.env !== undefined) {
    const name = d.text(f.env.value, [...path, 'env'], 'the name of an environment variable');
    return name === undefined ? undefined : at({ kind: 'env', name });
  }
  if (f.file !== undefined) {
    const file = d.text(f.file.value, [...path, 'file'], 'a file path (relative to the secret file)');
    return file === undefined ? undefined : at({ kind: 'file', path: file });
  }
  if (f.cmd !== undefined) {
    const argv = decodeArgv(d, f.cmd.value, [...path, 'cmd']);
    return argv === undefined ? undefined : at({ kind: 'cmd', argv });
  }
  if (f.totp !== undefined) return decodeTotp(d, f, f.totp, path);
  return undefined;
}

/** `{totp: SECRET, digits, period, algorithm}`: SECRET is base32 text or a reference to it. */
function decodeTotp(
  d: Decoder,
  f: Fields<(typeof REFERENCE_KINDS)[number] | (typeof TOTP_OPTIONS)[number]>,
  entry: MapEntry,
  path: Path,
): Sourced | undefined {
  const secretPath = [...path, 'totp'];
  const secret = decodeValue(
    d,
    entry.value,
    secretPath,
    'give the base32 secret, e.g. {totp: {env: APP_TOTP}}',
  );
  if (secret?.source.kind === 'totp') {
    d.error(
      entry.value,
      secretPath,
      'a {totp: …} secret cannot itself be a {totp: …}; give the base32 secret',
    );
    return undefined;
  }
  let ok = secret !== undefined;
  let { digits, periodSeconds, algorithm } = DEFAULT_TOTP;
  if (f.digits !== undefined) {
    const value = d.integer(f.digits.value, [...path, 'digits'], { min: 6, max: 10 });
    if (value === undefined) ok = false;
    else digits = value;
  }
  if (f.period !== undefined) {
    const p = [...path, 'period'];
    const value =
      f.period.value.kind === 'scalar' && /^\d+$/.test(f.period.value.text)
        ? d.integer(f.period.value, p, { min: 1, max: 3600 })
        : durationSeconds(d, f.period.value, p);
    if (value === undefined) ok = false;
    else periodSeconds = value;
  }
  if (f.algorithm !== undefined) {
    const p = [...path, 'algorithm'];
    const text = d.text(f.algorithm.value, p, `one of ${TOTP_ALGORITHMS.join(', ')}`);
    const found = TOTP_ALGORITHMS.find((a) => a === text?.toLowerCase().replace('-', ''));
    if (text !== undefined && found === undefined)
      d.error(f.algorithm.value, p, `unknown algorithm "${text}"; give one of ${TOTP_ALGORITHMS.join(', ')}`);
    if (found === undefined) ok = false;
    else algorithm = found;
  }
  if (!ok || secret === undefined) return undefined;
  return {
    source: { kind: 'totp', secret: secret.source, options: { digits, periodSeconds, algorithm } },
    pos: secret.pos,
    path,
  };
}

function durationSeconds(d: Decoder, node: SourceNode, path: Path): number | undefined {
  const text = d.text(node, path, 'seconds, or a duration such as 30s or 1m');
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 1000 || ms % 1000 !== 0 || ms > 3_600_000) {
    d.error(node, path, `invalid period "${text}"; give whole seconds from 1 to 3600, e.g. 30 or 30s`);
    return undefined;
  }
  return ms / 1000;
}

/** A one-time code changes at every login: it has a place in what a login sends, not in a secret. */
function refuseOneTimeCodes(d: Decoder, spec: SecretSpec<Sourced>): boolean {
  let ok = true;
  for (const value of secretStrings(spec)) {
    if (value.source.kind !== 'totp') continue;
    d.diagnostics.error(
      value.pos,
      value.path,
      "a {totp: …} code is made when a login runs: give it in a dynamic entry's variables: or login:, not in a secret sent with every request",
    );
    ok = false;
  }
  return ok;
}

function decodeArgv(d: Decoder, node: SourceNode, path: Path): string[] | undefined {
  if (node.kind === 'scalar') {
    d.error(
      node,
      path,
      `give the command as a list (no shell is used), e.g. cmd: [${node.text
        .split(/\s+/)
        .map((w) => JSON.stringify(w))
        .join(', ')}]`,
    );
    return undefined;
  }
  const list = d.nonEmptyList(node, path, 'a list: the program, then its arguments');
  if (list === undefined) return undefined;
  const argv: string[] = [];
  for (const [i, item] of list.items.entries()) {
    const scalar = d.scalar(item, [...path, i], 'a text argument');
    if (scalar === undefined) return undefined;
    argv.push(scalar.text);
  }
  if ((argv[0] ?? '').trim() === '') {
    d.error(list.items[0] ?? node, [...path, 0], 'the program name is empty');
    return undefined;
  }
  return argv;
}

// --- dynamic entries -------------------------------------------------------------------------------

function decodeDynamic(
  d: Decoder,
  node: SourceNode,
  index: number,
  file: string,
): DynamicDecl<Sourced> | undefined {
  const path: Path = ['dynamic', index];
  const map = d.map(
    node,
    path,
    'a dynamic entry (a mapping with template, variables and a templated secret)',
  );
  if (map === undefined) return undefined;
  const f = d.fields(map, path, DYNAMIC_KEYS);
  const origin: EntryOrigin = { file, section: 'dynamic', index, pos: map.pos };

  const method = decodeLoginMethod(d, map, f, path);
  const variables =
    f.variables === undefined ? [] : decodeVariables(d, f.variables.value, [...path, 'variables']);
  const input = f.input === undefined ? undefined : decodeValue(d, f.input.value, [...path, 'input']);
  const reauth = f.reauth === undefined ? undefined : decodeReauth(d, f.reauth.value, [...path, 'reauth']);

  const secrets: SecretDecl<Sourced>[] = [];
  const inlineGiven = SECRET_KEYS.some((k) => f[k] !== undefined);
  if (inlineGiven) {
    // The kind written, even when it has errors: its defaults hold, and are not reported missing.
    const written = f.login !== undefined ? 'form' : f.oauth2 !== undefined ? 'oauth2' : 'template';
    const inline = secretFromFields(d, map, f, path, origin, written);
    if (inline !== undefined) secrets.push(inline);
  }
  let listed = 0;
  let declared = inlineGiven ? 1 : 0;
  if (f.secrets !== undefined) {
    const list = d.nonEmptyList(f.secrets.value, [...path, 'secrets'], 'a list of templated secrets');
    list?.items.forEach((item, i) => {
      listed++;
      declared++;
      const itemOrigin: EntryOrigin = { ...origin, secret: i, pos: item.pos };
      const secret = decodeSecret(d, item, [...path, 'secrets', i], itemOrigin, 'templated secret');
      if (secret !== undefined) secrets.push(secret);
    });
  }
  const verify =
    f.verify === undefined ? undefined : dynamicVerify(d, f.verify.value, path, secrets, declared);
  if (!inlineGiven && listed === 0 && f.secrets === undefined) {
    d.error(
      map,
      path,
      'the entry says nothing about how to use the session: give type, domains and the fields the login fills (e.g. cookies: [{raw: "{{session}}"}]), or a secrets: list',
    );
  }
  if (f.variables !== undefined && variables === undefined) return undefined;
  if (method === undefined || variables === undefined) return undefined;
  if (f.input !== undefined && input === undefined) return undefined;
  if (f.reauth !== undefined && reauth === undefined) return undefined;
  if (f.verify !== undefined && verify === undefined) return undefined;
  return { origin, method, verify, variables, input, reauth, secrets };
}

/**
 * A dynamic entry's `verify:`, its URL checked against the scopes of its secrets when every one of
 * them was read (a secret with errors is reported on its own, and its scope is unknown).
 */
function dynamicVerify(
  d: Decoder,
  node: SourceNode,
  path: Path,
  secrets: readonly SecretDecl<Sourced>[],
  declared: number,
): DynamicDecl<Sourced>['verify'] {
  const known = secrets.length > 0 && secrets.length === declared;
  const outside = known
    ? outsideScopes(
        secrets.map((s) => s.scope),
        "the entry's secrets",
      )
    : undefined;
  return decodeVerify(d, node, [...path, 'verify'], outside);
}

function decodeVariables(d: Decoder, node: SourceNode, path: Path): Variable<Sourced>[] | undefined {
  if (node.kind === 'null') return [];
  const list = d.list(node, path, 'a list of {name, value}');
  if (list === undefined) return undefined;
  const out: Variable<Sourced>[] = [];
  const seen = new Map<string, number>();
  let ok = true;
  list.items.forEach((item, i) => {
    const p = [...path, i];
    const map = d.map(item, p, 'a mapping with name and value');
    if (map === undefined) {
      ok = false;
      return;
    }
    const f = d.fields(map, p, ['name', 'key', 'value'] as const);
    if (f.name !== undefined && f.key !== undefined) {
      d.error(f.key.key, [...p, 'key'], '"key" is another spelling of "name"; give one of them, not both');
      ok = false;
      return;
    }
    const nameEntry = f.name ?? f.key;
    if (nameEntry === undefined) {
      d.error(map, p, 'missing "name": the template variable this value is for');
      ok = false;
      return;
    }
    const name = d.text(nameEntry.value, [...p, nameEntry.key.text], 'a variable name');
    const value = required(d, map, f.value, p, 'value');
    if (name === undefined || value === undefined) {
      ok = false;
      return;
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      d.error(
        nameEntry.value,
        [...p, nameEntry.key.text],
        `the variable "${name}" is already given at ${formatPath([...path, earlier])}; give it once`,
      );
      ok = false;
      return;
    }
    seen.set(name, i);
    out.push({ name, value });
  });
  return ok ? out : undefined;
}

const REAUTH_KEYS = ['status', 'logged-out-regex', 'max', 'every'] as const;
const DEFAULT_REAUTH_MAX = 3;

function decodeReauth(d: Decoder, node: SourceNode, path: Path): Reauth | undefined {
  const map = d.map(node, path, 'a mapping of status, logged-out-regex, max, every');
  if (map === undefined) return undefined;
  const f = d.fields(map, path, REAUTH_KEYS);
  let ok = true;
  let status: number[] = [];
  if (f.status !== undefined) {
    const p = [...path, 'status'];
    const items = f.status.value.kind === 'seq' ? f.status.value.items : [f.status.value];
    if (items.length === 0) {
      d.error(f.status.value, p, 'must not be empty; give statuses such as [401, 403]');
      ok = false;
    }
    status = items.flatMap((item, i) => {
      const code = d.integer(item, f.status?.value.kind === 'seq' ? [...p, i] : p, { min: 100, max: 599 });
      if (code === undefined) ok = false;
      return code === undefined ? [] : [code];
    });
  }
  let loggedOutRegex: GoRegex | undefined;
  if (f['logged-out-regex'] !== undefined) {
    const p = [...path, 'logged-out-regex'];
    const text = d.text(f['logged-out-regex'].value, p, 'a regular expression (RE2 syntax)');
    if (text === undefined) ok = false;
    else {
      const regex = GoRegex.compile(text);
      if (regex instanceof RegexSyntaxError) {
        d.error(f['logged-out-regex'].value, p, regex.message);
        ok = false;
      } else loggedOutRegex = regex;
    }
  }
  let max = DEFAULT_REAUTH_MAX;
  if (f.max !== undefined) {
    const value = d.integer(f.max.value, [...path, 'max'], { min: 0, max: 1000 });
    if (value === undefined) ok = false;
    else max = value;
  }
  let everyMs: number | undefined;
  if (f.every !== undefined) {
    const p = [...path, 'every'];
    const text = d.text(f.every.value, p, 'a duration such as 15m or 1h30m');
    const ms = text === undefined ? undefined : parseDuration(text);
    if (text !== undefined && ms === undefined)
      d.error(f.every.value, p, `invalid duration "${text}"; write e.g. 90s, 15m or 1h30m`);
    else if (ms !== undefined && ms < 1000) d.error(f.every.value, p, 'must be at least 1s');
    if (ms === undefined || ms < 1000) ok = false;
    else everyMs = ms;
  }
  if (ok && f.status === undefined && f['logged-out-regex'] === undefined && f.every === undefined) {
    d.error(
      map,
      path,
      'say when to log in again: give status (e.g. [401, 403]), logged-out-regex or every (e.g. 15m)',
    );
    ok = false;
  }
  return ok ? { status, loggedOutRegex, max, everyMs } : undefined;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A Go-style duration (`1h30m`, `15m`, `90s`, `500ms`) in milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(h|ms|m|s))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(h|ms|m|s)/g))
    total += Number(amount) * (UNIT_MS[unit ?? ''] ?? 0);
  return total;
}
