import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import {
  type Diagnostic,
  Diagnostics,
  describeReadProblem,
  formatOf,
  type Position,
  parseSource,
  readBounded,
  sortDiagnostics,
} from '../source/index.js';
import type { ExternalVariable } from '../template/index.js';
import { buildCredential, hasPlaceholder, mapSecret, placeholdersIn, secretStrings } from './credential.js';
import { decodeSecretFile } from './decode.js';
import { urlProblem } from './decode-login.js';
import { methodRedacted, methodSecrets, methodUrls, methodValues, resolvedMethod } from './login-method.js';
import {
  inspectLoginTemplateFile,
  type LoginTemplateInfo,
  type LoginTemplateInspector,
} from './login-template.js';
import type {
  DynamicDecl,
  DynamicSecret,
  Login,
  LoginMethod,
  Reauth,
  ScopedSecret,
  SecretFileDecl,
  SecretSet,
  SecretSpec,
  Sourced,
  StaticSecret,
  ValueSource,
} from './model.js';
import { Redactor } from './redact.js';
import { type CommandRunner, DEFAULT_COMMAND_TIMEOUT_MS, resolveValues } from './references.js';
import { decodeBase32, type LoginValue, OneTimeCode } from './totp.js';

/** The largest secret file read, checked before it is parsed: thousands of entries fit in far less. */
export const MAX_SECRET_FILE_BYTES = 4 << 20;

export interface LoadOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The templates directory: the last place a relative `template:` path is looked for. */
  readonly templatesDir?: string | undefined;
  readonly inspectLoginTemplate?: LoginTemplateInspector;
  readonly runCommand?: CommandRunner;
  readonly commandTimeoutMs?: number;
  /** Warn when a file holding literal secrets is readable by group or others (default true). */
  readonly checkPermissions?: boolean;
}

export interface LoadResult {
  /** Undefined when any file has an error. */
  readonly secrets: SecretSet | undefined;
  /** Errors and warnings of every file, each file's in line order. */
  readonly diagnostics: readonly Diagnostic[];
  /** Holds every resolved secret value of the files. */
  readonly redactor: Redactor;
  /** Each file on its own, in the order given; `secrets` is undefined for a file with errors. */
  readonly files: readonly { readonly file: string; readonly secrets: SecretSet | undefined }[];
}

/**
 * Loads secret files as one list, in the order given (a.static, a.dynamic, b.static, b.dynamic):
 * parses them, checks every rule, resolves references once, checks login templates, and reports
 * every problem of every file.
 */
export async function loadSecretFiles(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const redactor = new Redactor();
  const diagnostics: Diagnostic[] = [];
  const entries: ScopedSecret[] = [];
  const logins: Login[] = [];
  const files: LoadResult['files'][number][] = [];
  const inspected = new Map<string, Promise<LoginTemplateInfo>>();
  const inspect = (path: string) => {
    let pending = inspected.get(path);
    if (pending === undefined) {
      pending = (options.inspectLoginTemplate ?? inspectLoginTemplateFile)(path);
      inspected.set(path, pending);
    }
    return pending;
  };
  for (const path of paths) {
    const loaded = await loadOne(path, options, redactor, inspect);
    diagnostics.push(...loaded.diagnostics);
    files.push({ file: path, secrets: loaded.set });
    if (loaded.set !== undefined) {
      entries.push(...loaded.set.entries);
      logins.push(...loaded.set.logins);
    }
  }
  const failed = diagnostics.some((d) => d.severity === 'error');
  return { secrets: failed ? undefined : { entries, logins }, diagnostics, redactor, files };
}

async function loadOne(
  path: string,
  options: LoadOptions,
  redactor: Redactor,
  inspect: (path: string) => Promise<LoginTemplateInfo>,
): Promise<{ set: SecretSet | undefined; diagnostics: Diagnostic[] }> {
  const diagnostics = new Diagnostics(path);
  const top = { line: 1, col: 1, offset: 0 };
  const format = formatOf(path);
  if (format === undefined) {
    diagnostics.error(top, [], 'a secret file must end in .yaml, .yml or .json');
    return { set: undefined, diagnostics: diagnostics.items };
  }
  const absolute = resolve(options.cwd, path);
  const read = await readBounded(absolute, {
    maxBytes: MAX_SECRET_FILE_BYTES,
    timeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
  });
  if (!read.ok) {
    diagnostics.error(top, [], `cannot read the secret file: ${describeReadProblem(read.problem)}`);
    return { set: undefined, diagnostics: diagnostics.items };
  }
  const text = read.text;
  const parsed = parseSource(path, text, format);
  const decl = decodeSecretFile(parsed);
  const found = parsed.diagnostics;
  const extra: Diagnostic[] = [];
  let set: SecretSet | undefined;
  if (decl !== undefined) {
    if (options.checkPermissions !== false) await warnIfReadable(absolute, decl, found);
    set = await build(decl, dirname(absolute), options, found, redactor, inspect, extra);
  }
  return {
    set: found.hasErrors ? undefined : set,
    diagnostics: [...sortDiagnostics(found.items), ...extra],
  };
}

async function build(
  decl: SecretFileDecl<Sourced>,
  baseDir: string,
  options: LoadOptions,
  diagnostics: Diagnostics,
  redactor: Redactor,
  inspect: (path: string) => Promise<LoginTemplateInfo>,
  templateDiagnostics: Diagnostic[],
): Promise<SecretSet | undefined> {
  const dynamic = decl.dynamic.map((entry) => ({ ...entry, variables: entry.variables.map(envVariable) }));
  const values: Sourced[] = [
    ...decl.static.flatMap((s) => secretStrings(s.spec)),
    ...dynamic.flatMap((e) => [
      ...e.variables.map((v) => v.value),
      ...(e.input === undefined ? [] : [e.input]),
      ...methodValues(e.method),
      ...e.secrets.flatMap((s) => secretStrings(s.spec)),
    ]),
  ];
  // A missing or broken login template is a problem of its entry alone: every other check still runs.
  const structureValid = !diagnostics.hasErrors;
  const templates = await Promise.all(
    dynamic.map((entry) => checkTemplate(entry, baseDir, options, diagnostics, inspect, templateDiagnostics)),
  );
  // References are only resolved (commands only run) for a file whose structure is valid.
  if (!structureValid) return undefined;
  const context = {
    env: options.env,
    baseDir,
    runCommand: options.runCommand,
    commandTimeoutMs: options.commandTimeoutMs,
  };
  const resolved = await resolveValues(values, context, diagnostics);
  const text = (value: Sourced): string => resolved.get(value) ?? '';
  const report = (value: Sourced, message: string) => diagnostics.error(value.pos, value.path, message);
  const unresolved = (value: Sourced) => !resolved.has(value);

  const entries: ScopedSecret[] = [];
  for (const secret of decl.static) {
    const credential = buildCredential(secret.spec, { text, report, skip: unresolved });
    if (credential === undefined) continue;
    redactor.registerCredential(credential);
    entries.push({
      kind: 'static',
      origin: secret.origin,
      scope: secret.scope,
      credential,
      ...(secret.verify === undefined ? {} : { verify: secret.verify }),
    } satisfies StaticSecret);
  }
  const logins: Login[] = [];
  dynamic.forEach((entry, i) => {
    const skip = (value: Sourced, t: string) => unresolved(value) || hasPlaceholder(t);
    for (const secret of entry.secrets) buildCredential(secret.spec, { text, report, skip });
    for (const { value, secret } of methodUrls(entry.method))
      if (!unresolved(value)) checkReferencedUrl(value, text(value), secret, report);
    if (entry.method.kind === 'browser') checkBrowserPlaceholders(entry, text, report);
    const template = templates[i];
    if (entry.method.kind === 'template' && template === undefined) return;
    const variables = entry.variables.map((v) => ({ name: v.name, value: loginValue(v.value, text) }));
    for (const v of entry.variables) redactor.register(text(v.value));
    for (const v of methodRedacted(entry.method)) redactor.register(text(v));
    const placeholders = [
      ...new Set(entry.secrets.flatMap((s) => secretStrings(s.spec).flatMap((v) => placeholdersIn(text(v))))),
    ];
    const secrets: DynamicSecret[] = [];
    const method: LoginMethod =
      entry.method.kind === 'template'
        ? { kind: 'template', template: template?.path ?? '' }
        : resolvedMethod(entry.method, text, (value) => loginValue(value, text));
    const login: Login = {
      origin: entry.origin,
      method,
      verify: entry.verify,
      variables,
      input: entry.input === undefined ? defaultInput(method) : text(entry.input),
      reauth: entry.reauth ?? (method.kind === 'oauth2' ? RENEW_ON_401 : undefined),
      placeholders,
      secrets,
    };
    for (const secret of entry.secrets) {
      secrets.push({
        kind: 'dynamic',
        origin: secret.origin,
        scope: secret.scope,
        spec: mapSecret(secret.spec, text),
        login,
      });
    }
    if (template !== undefined) checkTemplateUse(entry, template, variables, text, report, diagnostics);
    logins.push(login);
    entries.push(...secrets);
  });
  return diagnostics.hasErrors ? undefined : { entries, logins };
}

/**
 * A login URL given by a reference is checked once resolved, by the rules a URL written in the
 * file meets when it is decoded (an http(s) URL; a token URL over https unless on this machine).
 */
function checkReferencedUrl(
  value: Sourced,
  resolved: string,
  secret: boolean,
  report: (value: Sourced, message: string) => void,
): void {
  if (value.source.kind === 'literal') return;
  const problem = urlProblem(resolved, secret);
  if (problem !== undefined)
    report(value, `${referenceLabel(value.source)} gives ${JSON.stringify(resolved)}: ${problem}`);
}

function referenceLabel(source: ValueSource): string {
  switch (source.kind) {
    case 'env':
      return `the environment variable ${source.name}`;
    case 'file':
      return `the file ${source.path}`;
    case 'cmd':
      return `the command ${JSON.stringify(source.argv[0] ?? '')}`;
    default:
      return 'the reference';
  }
}

/** A browser login fills `{{cookie.X}}`, `{{local.X}}` and `{{session.X}}`, nothing else. */
function checkBrowserPlaceholders(
  entry: DynamicDecl<Sourced>,
  text: (value: Sourced) => string,
  report: (value: Sourced, message: string) => void,
): void {
  for (const secret of entry.secrets)
    for (const value of secretStrings(secret.spec)) {
      const wrong = placeholdersIn(text(value)).filter((name) => !/^(cookie|local|session)\../.test(name));
      for (const name of new Set(wrong))
        report(
          value,
          `{{${name}}} is not filled by a browser login; it gives {{local.NAME}} (localStorage), {{session.NAME}} (sessionStorage) and {{cookie.NAME}}`,
        );
    }
}

/** The placeholders of the entry's secrets are the template's named extractors; its variables are given. */
function checkTemplateUse(
  entry: DynamicDecl<Sourced>,
  template: TemplateCheck,
  variables: readonly { readonly name: string }[],
  text: (value: Sourced) => string,
  report: (value: Sourced, message: string) => void,
  diagnostics: Diagnostics,
): void {
  for (const secret of entry.secrets) {
    for (const value of secretStrings(secret.spec)) {
      const missing = placeholdersIn(text(value)).filter((name) => !template.extractorNames.includes(name));
      for (const name of new Set(missing))
        report(value, missingExtractorMessage(name, template.display, template.extractorNames));
    }
  }
  for (const need of template.needs) {
    if (variables.some((v) => v.name === need.name)) continue;
    diagnostics.error(
      template.pos,
      ['dynamic', entry.origin.index, 'template'],
      missingVariableMessage(need, template),
    );
  }
}

function missingVariableMessage(need: ExternalVariable, template: TemplateCheck): string {
  return (
    `the login template ${template.display} uses {{${need.name}}} (from line ${need.pos.line}), and neither it ` +
    `nor this entry gives it a value; add it to the entry's variables: (- {name: ${need.name}, value: …})`
  );
}

function missingExtractorMessage(name: string, template: string, names: readonly string[]): string {
  const known =
    names.length === 0 ? 'it has no named extractors' : `its named extractors are: ${names.join(', ')}`;
  return `{{${name}}} is not a named extractor of the login template ${template}; ${known}`;
}

/** A form or browser login runs at its page, an OAuth 2.0 login at its token URL. */
function defaultInput(method: LoginMethod): string | undefined {
  if (method.kind === 'form') return String(method.form.url);
  if (method.kind === 'browser') return String(method.browser.url);
  if (method.kind === 'oauth2') return method.oauth2.tokenUrl;
  return undefined;
}

/** An OAuth 2.0 token is renewed when an API answers 401, unless `reauth:` says otherwise. */
const RENEW_ON_401: Reauth = { status: [401], loggedOutRegex: undefined, max: 3, everyMs: undefined };

/** A value as a login fills it in: its text, or the codes of a `{totp: …}` secret. */
function loginValue(value: Sourced, text: (value: Sourced) => string): LoginValue {
  if (value.source.kind !== 'totp') return text(value);
  const key = decodeBase32(text(value));
  // Already reported where the secret was resolved: the file fails to load, this value is never used.
  if ('problem' in key) return '';
  return new OneTimeCode(key, value.source.options);
}

/** nuclei compatibility: a variable value `$NAME` is the environment variable NAME. */
function envVariable(
  variable: DynamicDecl<Sourced>['variables'][number],
): DynamicDecl<Sourced>['variables'][number] {
  const source = variable.value.source;
  if (source.kind !== 'literal' || !source.text.startsWith('$')) return variable;
  return { ...variable, value: { ...variable.value, source: { kind: 'env', name: source.text.slice(1) } } };
}

interface TemplateCheck {
  readonly path: string;
  readonly pos: Position;
  readonly display: string;
  readonly extractorNames: readonly string[];
  readonly needs: readonly ExternalVariable[];
}

/**
 * Finds the login template (absolute; else relative to the secret file's folder; else to the
 * current directory; else to the templates directory) and checks that it parses.
 */
async function checkTemplate(
  entry: DynamicDecl<Sourced>,
  baseDir: string,
  options: LoadOptions,
  diagnostics: Diagnostics,
  inspect: (path: string) => Promise<LoginTemplateInfo>,
  templateDiagnostics: Diagnostic[],
): Promise<TemplateCheck | undefined> {
  if (entry.method.kind !== 'template') return undefined;
  const written = entry.method.text;
  const pos = entry.method.pos;
  const candidates = isAbsolute(written)
    ? [written]
    : [baseDir, options.cwd, options.templatesDir].flatMap((dir) =>
        dir === undefined ? [] : [resolve(options.cwd, dir, written)],
      );
  const at = ['dynamic', entry.origin.index, 'template'];
  let found: string | undefined;
  for (const candidate of new Set(candidates)) {
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile() === true) {
      found = candidate;
      break;
    }
    if (info?.isDirectory() === true) {
      diagnostics.error(pos, at, `${candidate} is a folder; give the login template file`);
      return undefined;
    }
  }
  if (found === undefined) {
    const places = [...new Set(candidates)].map((c) => display(options.cwd, c)).join(', ');
    const hint =
      options.templatesDir === undefined && !isAbsolute(written) ? ' (no templates directory was given)' : '';
    diagnostics.error(
      pos,
      at,
      `the login template ${JSON.stringify(written)} was not found; looked for ${places}${hint}`,
    );
    return undefined;
  }
  const shown = display(options.cwd, found);
  const info = await inspect(found);
  if (!info.ok) {
    diagnostics.error(pos, at, `the login template ${shown} has errors (listed below)`);
    templateDiagnostics.push(...info.diagnostics.map((d) => ({ ...d, file: display(options.cwd, d.file) })));
    return undefined;
  }
  return { path: found, pos, display: shown, extractorNames: info.extractorNames, needs: info.needs };
}

function display(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/**
 * Whether the file writes any secret value literally (not as a reference or `$VAR`). Names of
 * headers, parameters and cookies are not secrets; nor is a basic-auth username, unless the
 * password is empty (an API key given as the username).
 */
export function holdsLiteralSecrets(decl: SecretFileDecl<Sourced>): boolean {
  const literalSource = (source: ValueSource): boolean =>
    source.kind === 'totp'
      ? literalSource(source.secret)
      : source.kind === 'literal' && source.text !== '' && !isOnlyPlaceholders(source.text);
  const literal = (v: Sourced) => literalSource(v.source);
  const secretValues = (spec: SecretSpec<Sourced>): Sourced[] => {
    switch (spec.type) {
      case 'basicauth': {
        const emptyPassword = spec.password.source.kind === 'literal' && spec.password.source.text === '';
        return emptyPassword ? [spec.username] : [spec.password];
      }
      case 'bearertoken':
        return [spec.token];
      case 'header':
        return spec.headers.map((h) => h.value);
      case 'query':
        return spec.params.map((p) => p.value);
      case 'cookie':
        return spec.cookies.map((c) => (c.kind === 'raw' ? c.raw : c.value));
    }
  };
  const envVariable = (v: Sourced) => v.source.kind === 'literal' && v.source.text.startsWith('$');
  return (
    decl.static.some((s) => secretValues(s.spec).some(literal)) ||
    decl.dynamic.some(
      (e) =>
        e.variables.some((v) => literal(v.value) && !envVariable(v.value)) ||
        methodSecrets(e.method).some(literal) ||
        e.secrets.some((s) => secretValues(s.spec).some(literal)),
    )
  );
}

function isOnlyPlaceholders(text: string): boolean {
  return text.replace(/\{\{\s*[^{}\s]+\s*\}\}/g, '').trim() === '';
}

async function warnIfReadable(
  path: string,
  decl: SecretFileDecl<Sourced>,
  diagnostics: Diagnostics,
): Promise<void> {
  if (process.platform === 'win32' || !holdsLiteralSecrets(decl)) return;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || (info.mode & 0o077) === 0) return;
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
  diagnostics.warning(
    { line: 1, col: 1, offset: 0 },
    [],
    `this file holds secrets written in it and other users can read it (mode ${mode}); run chmod 600 on it, or keep the secrets out of it with {env: …}, {file: …} or {cmd: […]}`,
  );
}
