/** `keyhole secrets match -sf FILE URL…`: which secret each URL gets, and what it adds to the request. */
import { isAbsolute, relative } from 'node:path';
import {
  basicAuthorization,
  type Credential,
  type Login,
  loadSecretFiles,
  type MatchKey,
  matchKeyOfUrl,
  originLabel,
  REDACTED,
  type ScopedSecret,
  SecretIndex,
  type SecretSpec,
} from '../../../secretfile/index.js';
import { formatDiagnostic, quote } from '../../../source/index.js';
import { ExitCode, UserError } from '../../exit.js';
import type { CliIo } from '../../io.js';
import type { MatchFlags } from './command.js';

interface MatchResult {
  readonly url: string;
  readonly secret: null | {
    readonly file: string;
    readonly section: 'static' | 'dynamic';
    readonly index: number;
    readonly secret?: number;
    readonly entry: string;
    readonly type: string;
    readonly matchedBy: string;
    readonly login?: {
      readonly kind: 'template' | 'form' | 'browser' | 'oauth2';
      template?: string;
      readonly url?: string;
      readonly target: string;
    };
    /** The `verify:` URL: a static secret is checked there before its first request, a session after each login. */
    readonly verify?: string;
    readonly adds: Additions;
  };
}

interface Additions {
  readonly headers: [string, string][];
  readonly cookies: [string, string][];
  readonly query: [string, string][];
  readonly url?: string;
}

export async function match(urls: readonly string[], options: MatchFlags, io: CliIo): Promise<number> {
  const files = options.secretFile;
  if (files.length === 0) throw new UserError('give at least one secret file with -sf FILE');
  const parsed = urls.map((text) => parseUrl(text));
  const result = await loadSecretFiles(files, {
    cwd: io.cwd,
    env: io.env,
    templatesDir: options.templatesDir,
  });
  if (result.secrets === undefined) {
    for (const d of result.diagnostics) io.stderr.write(`${formatDiagnostic(d)}\n`);
    io.stderr.write(
      'error: the secret files have errors; fix them first (keyhole secrets validate shows them)\n',
    );
    return ExitCode.usage;
  }
  for (const d of result.diagnostics) io.stderr.write(`${formatDiagnostic(d)}\n`);
  const index = new SecretIndex(result.secrets.entries);
  const mask = (value: string) => (options.reveal === true ? value : REDACTED);
  const maskTemplated = (value: string) => (options.reveal === true ? value : result.redactor.redact(value));
  const results: MatchResult[] = parsed.map(({ url, key }) => {
    const entry = index.lookup(key);
    const secret = entry === undefined ? null : describeEntry(entry, key, url, mask, maskTemplated);
    if (secret?.login?.template !== undefined) secret.login.template = shown(io.cwd, secret.login.template);
    return { url: url.href, secret };
  });
  if (options.json === true) io.stdout.write(`${JSON.stringify({ results }, null, 2)}\n`);
  else for (const r of results) io.stdout.write(renderMatch(r));
  return ExitCode.ok;
}

function shown(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

function parseUrl(text: string): { url: URL; key: MatchKey } {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UserError(`${quote(text)} is not a URL; give one such as https://app.example.com/path`);
  }
  const key = matchKeyOfUrl(url);
  if (key === undefined) throw new UserError(`${quote(text)} is not an http or https URL`);
  return { url, key };
}

function describeEntry(
  entry: ScopedSecret,
  key: MatchKey,
  url: URL,
  mask: (v: string) => string,
  maskTemplated: (v: string) => string,
): NonNullable<MatchResult['secret']> {
  const base = {
    file: entry.origin.file,
    section: entry.origin.section,
    index: entry.origin.index,
    ...(entry.origin.secret === undefined ? {} : { secret: entry.origin.secret }),
    entry: originLabel(entry.origin),
    matchedBy: matchedBy(entry, key),
  };
  if (entry.kind === 'static') {
    return {
      ...base,
      type: entry.credential.type,
      ...(entry.verify === undefined ? {} : { verify: entry.verify.url }),
      adds: credentialAdditions(entry.credential, url, mask),
    };
  }
  const target = entry.login.input ?? `${url.protocol}//${key.text}`;
  return {
    ...base,
    type: entry.spec.type,
    login: loginShown(entry.login, target),
    ...(entry.login.verify === undefined ? {} : { verify: entry.login.verify.url }),
    adds: templatedAdditions(entry.spec, url, maskTemplated),
  };
}

function matchedBy(entry: ScopedSecret, key: MatchKey): string {
  if (entry.scope.kind === 'domains-regex') {
    const pattern = entry.scope.patterns.find((p) => p.test(key.text));
    return `domains-regex ${JSON.stringify(pattern?.source ?? '')}`;
  }
  const item = entry.scope.domains.find(
    (d) => d.host === key.host && (d.port === undefined ? key.defaultPort : d.port === key.port),
  );
  return `domains ${JSON.stringify(item === undefined ? key.text : item.port === undefined ? item.host : `${item.host}:${item.port}`)}`;
}

function withQuery(url: URL, query: [string, string][]): string {
  const copy = new URL(url.href);
  for (const [name, value] of query) copy.searchParams.set(name, value);
  return copy.href.replaceAll(encodeURIComponent(REDACTED), REDACTED);
}

function credentialAdditions(c: Credential, url: URL, mask: (v: string) => string): Additions {
  switch (c.type) {
    case 'basicauth': {
      const value = mask(basicAuthorization(c.username, c.password).slice('Basic '.length));
      return { headers: [['Authorization', `Basic ${value}`]], cookies: [], query: [] };
    }
    case 'bearertoken':
      return { headers: [['Authorization', `Bearer ${mask(c.token)}`]], cookies: [], query: [] };
    case 'header':
      return { headers: c.headers.map((h) => [h.name, mask(h.value)]), cookies: [], query: [] };
    case 'cookie':
      return { headers: [], cookies: c.cookies.map((k) => [k.name, mask(k.value)]), query: [] };
    case 'query': {
      const query = c.params.map((p): [string, string] => [p.name, mask(p.value)]);
      return { headers: [], cookies: [], query, url: withQuery(url, query) };
    }
  }
}

function templatedAdditions(spec: SecretSpec<string>, url: URL, mask: (v: string) => string): Additions {
  switch (spec.type) {
    case 'basicauth':
      return {
        headers: [['Authorization', `Basic base64(${mask(spec.username)}:${mask(spec.password)})`]],
        cookies: [],
        query: [],
      };
    case 'bearertoken':
      return { headers: [['Authorization', `Bearer ${mask(spec.token)}`]], cookies: [], query: [] };
    case 'header':
      return { headers: spec.headers.map((h) => [mask(h.key), mask(h.value)]), cookies: [], query: [] };
    case 'cookie':
      return {
        headers: [],
        cookies: spec.cookies.map((c) =>
          c.kind === 'raw' ? ['(raw)', mask(c.raw)] : [mask(c.key), mask(c.value)],
        ),
        query: [],
      };
    case 'query': {
      const query = spec.params.map((p): [string, string] => [mask(p.key), mask(p.value)]);
      return { headers: [], cookies: [], query, url: withQuery(url, query) };
    }
  }
}

function renderMatch(r: MatchResult): string {
  const lines = [r.url];
  const s = r.secret;
  if (s === null) {
    lines.push('  no secret');
    return `${lines.join('\n')}\n`;
  }
  lines.push(`  secret: ${s.file} ${s.entry} (${s.type}), matched by ${s.matchedBy}`);
  if (s.login !== undefined) {
    const how =
      s.login.kind === 'template'
        ? `template ${s.login.template}`
        : s.login.kind === 'oauth2'
          ? `OAuth 2.0 token from ${s.login.url}`
          : `${s.login.kind} login at ${s.login.url}`;
    lines.push(`  needs a login: ${how}, run against ${s.login.target}`);
    if (s.verify !== undefined) lines.push(`  checked after each login at ${s.verify}`);
    lines.push('  values below are templated: {{name}} is filled from the login');
  } else if (s.verify !== undefined) lines.push(`  checked before its first request at ${s.verify}`);
  for (const [name, value] of s.adds.headers) lines.push(`  header  ${name}: ${value}`);
  for (const [name, value] of s.adds.cookies)
    lines.push(`  cookie  ${name === '(raw)' ? value : `${name}=${value}`}`);
  for (const [name, value] of s.adds.query) lines.push(`  query   ${name}=${value}`);
  if (s.adds.url !== undefined) lines.push(`  url     ${s.adds.url}`);
  return `${lines.join('\n')}\n`;
}

/** Which kind of login an entry uses, and where it logs in (never a credential). */
function loginShown(login: Login, target: string): NonNullable<NonNullable<MatchResult['secret']>['login']> {
  switch (login.method.kind) {
    case 'template':
      return { kind: 'template', template: login.method.template, target };
    case 'form':
      return { kind: 'form', url: String(login.method.form.url), target: String(login.method.form.url) };
    case 'browser':
      return {
        kind: 'browser',
        url: String(login.method.browser.url),
        target: String(login.method.browser.url),
      };
    case 'oauth2':
      return { kind: 'oauth2', url: login.method.oauth2.tokenUrl, target };
  }
}
