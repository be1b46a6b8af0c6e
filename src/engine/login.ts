import type { Login, LoginContext, LoginRunner, SecretResolver } from '../secretfile/index.js';
import { formatDiagnostic } from '../source/index.js';
import { loadTemplate, type ParsedTemplate } from '../template/index.js';
import { runTemplate } from './run.js';
import type { RequestAuthorizer, RequestSender, RunOptions, TemplateRun } from './types.js';

/** What decides the secrets of requests: the secret file's `SecretResolver` (or a view of it). */
export type SecretApplier = Pick<SecretResolver, 'apply' | 'applyRaw'>;

export interface LoginRunnerOptions {
  readonly client: RequestSender;
  readonly timeoutMs?: number;
  readonly retries?: number;
  readonly signal?: AbortSignal;
  /** Reads the login template (default: from disk, payload files found as for any template). */
  readonly loadTemplate?: (path: string) => Promise<ParsedTemplate>;
  /** Further run options (e.g. `-H` headers, a user agent). */
  readonly run?: Partial<Omit<RunOptions, 'client' | 'variables' | 'authorizer' | 'onResult'>>;
}

export class LoginError extends Error {
  override readonly name = 'LoginError';
}

/** The secret file's `LoginRunner`, on this engine. */
export class TemplateLoginRunner implements LoginRunner {
  constructor(private readonly options: LoginRunnerOptions) {}

  async login(login: Login, target: string, context: LoginContext): Promise<Record<string, string>> {
    const template = await (this.options.loadTemplate ?? readLoginTemplate)(login.template);
    const values = new Map<string, string>();
    let matched = false;
    const run = await runTemplate(template, target, {
      ...this.options.run,
      client: this.options.client,
      variables: Object.fromEntries(login.variables.map((v) => [v.name, v.value])),
      authorizer: secretAuthorizer(context.secrets),
      ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
      ...(this.options.retries === undefined ? {} : { retries: this.options.retries }),
      ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
      onResult: ({ result }) => {
        if (result.matched) matched = true;
        for (const [name, found] of [...result.dynamicValues, ...result.extracts]) {
          const first = found[0];
          if (name !== '' && first !== undefined && !values.has(name)) values.set(name, first);
        }
      },
    });
    const problem = loginProblem(template, login, run, matched, values);
    if (problem !== undefined) throw new LoginError(problem);
    return Object.fromEntries(values);
  }
}

async function readLoginTemplate(path: string): Promise<ParsedTemplate> {
  const result = await loadTemplate(path);
  if (result.status === 'ok') return result.template;
  if (result.status === 'unsupported') {
    const features = result.features.map((f) => `${f.feature} (${f.file}:${f.line}:${f.col})`).join(', ');
    throw new LoginError(`the login template ${path} uses what keyhole does not run yet: ${features}`);
  }
  const errors = result.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
  throw new LoginError(`the login template ${path} has errors:\n${errors.join('\n')}`);
}

function loginProblem(
  template: ParsedTemplate,
  login: Login,
  run: TemplateRun,
  matched: boolean,
  values: ReadonlyMap<string, string>,
): string | undefined {
  const status =
    run.lastStatus === undefined ? 'no response was received' : `last response status ${run.lastStatus}`;
  if (run.flowError !== undefined) return `the login template ${template.id} flow failed: ${run.flowError}`;
  if (run.requests === 0) {
    const why = run.failures[0]?.message ?? run.skipped[0]?.reason ?? 'it sent no request';
    return `the login template ${template.id} sent no request: ${why}`;
  }
  const hasMatchers = template.http.some((block) => block.operators.model.matchers.length > 0);
  if (hasMatchers && !matched) {
    return `the login template ${template.id} did not match (the login was refused?); ${status}`;
  }
  const missing = login.placeholders.filter((name) => !values.has(name));
  if (missing.length > 0) {
    const got = values.size === 0 ? 'it extracted nothing' : `it extracted ${[...values.keys()].join(', ')}`;
    const names = missing.map((name) => `{{${name}}}`).join(', ');
    return `the login template ${template.id} gave no value for ${names}; ${got}; ${status}`;
  }
  return undefined;
}

/** The secrets a resolver decides, as the engine's request authorizer. */
export function secretAuthorizer(secrets: SecretApplier): RequestAuthorizer {
  return {
    async authorize(request) {
      const applied = await secrets.apply(request);
      if (applied.kind === 'error') return { kind: 'refuse', reason: applied.reason };
      return { kind: 'send', request: applied.request };
    },
    async authorizeRaw(text, destination) {
      const applied = await secrets.applyRaw(text, destination);
      if (applied.kind === 'error') return { kind: 'refuse', reason: applied.reason };
      return { kind: 'send', request: applied.request };
    },
  };
}
