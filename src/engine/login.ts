import {
  type BrowserDestination,
  ConfinedBrowser,
  DEFAULT_CHROMIUM,
  type PageRequest,
} from '../browser/index.js';
import { type HttpRequest, type ProxyServer, TunnelSocket } from '../http/index.js';
import {
  type BrowserLoginSpec,
  type Login,
  type LoginContext,
  type LoginRunner,
  type LoginValue,
  loginRedirectRefusal,
  loginScope,
  matchKey,
  originLabel,
  valueNow,
} from '../secretfile/index.js';
import { chain, type Dispatch, withSecrets } from '../send/index.js';
import { formatDiagnostic } from '../source/index.js';
import { hasScheme } from '../targets/index.js';
import { loadTemplate, type ParsedTemplate } from '../template/index.js';
import { browserLogin } from './login-browser.js';
import { formLogin } from './login-form.js';
import { LoginBrowser, requestTo } from './login-http.js';
import { oauth2Login } from './login-oauth2.js';
import { runTemplate } from './run-template.js';
import type { RunOptions, SkippedRequest, TemplateRun } from './types.js';

export interface LoginRunnerOptions {
  /**
   * Sends a login's requests (resends, pacing, counting, as the scan's do); the runner adds the
   * secrets a login gets: the static entries only.
   */
  readonly dispatch: Dispatch;
  /** See {@link RunOptions.exchangeDeadlines}. */
  readonly exchangeDeadlines?: number;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * The URL to log in at for an `input:` written without a scheme (`auth.example.com`), as a scan
   * probes such a target; without it, such an input is an error.
   */
  readonly resolveInput?: (input: string) => Promise<string>;
  /** Reads the login template (default: from disk, payload files found as for any template). */
  readonly loadTemplate?: (path: string) => Promise<ParsedTemplate>;
  /** The Chromium a browser login drives (default /usr/bin/chromium). */
  readonly chromium?: string;
  /** `-proxy`: the browser's connections go through it too. */
  readonly proxy?: ProxyServer;
  /**
   * `-rl`: resolves when the browser of a login may send its next request (the scan's own
   * limiter), as `dispatch` paces the requests of every other login.
   */
  readonly pace?: () => Promise<void>;
  /** Further run options (e.g. `-H` headers, a user agent). */
  readonly run?: Partial<Omit<RunOptions, 'dispatch' | 'variables' | 'onResult'>>;
}

export class LoginError extends Error {
  override readonly name = 'LoginError';
}

/** The secret file's `LoginRunner`, on this engine. */
export class TemplateLoginRunner implements LoginRunner {
  constructor(private readonly options: LoginRunnerOptions) {}

  /** A session check goes as the resolver made it: its own secret applied, no other. */
  readonly check = async (request: HttpRequest): Promise<{ status: number; text: string }> => {
    const sent = await this.options.dispatch(request, {
      timeoutMs: this.options.timeoutMs,
      signal: this.options.signal,
    });
    return {
      status: sent.response.statusCode,
      text: `${sent.response.rawHead}${sent.response.body.toString('utf8')}`,
    };
  };

  async login(login: Login, input: string, context: LoginContext): Promise<Record<string, string>> {
    switch (login.method.kind) {
      case 'template':
        return this.templateLogin(login, login.method.template, input, context);
      case 'form': {
        const refusal = loginRedirectRefusal(login, String(login.method.form.url));
        const browser = this.browser(context, refusal);
        const allowed = (url: string) =>
          refusal(requestTo('GET', url)) === undefined
            ? undefined
            : `outside the scope of ${originLabel(login.origin)} and the host it logs in at`;
        return formLogin(login.method.form, browser, allowed);
      }
      case 'browser':
        return this.browserLogin(login, login.method.browser, context);
      case 'oauth2': {
        const tokenUrl = new URL(login.method.oauth2.tokenUrl);
        // The client secret goes to the token URL's origin as written, and nowhere else.
        const browser = this.browser(context, (to) =>
          to.scheme === tokenUrl.protocol.slice(0, -1) &&
          to.hostname === tokenUrl.hostname.replace(/^\[|\]$/g, '') &&
          to.port === requestTo('GET', tokenUrl.href).port
            ? undefined
            : `the token request was redirected to ${to.hostname}:${to.port}, away from the token URL's origin; the redirect was not followed, so the client secret did not go there`,
        );
        return oauth2Login(login.method.oauth2, browser);
      }
    }
  }

  /** Starts Chromium for this login alone, confined to the login's scope, and closes it after. */
  private async browserLogin(
    login: Login,
    spec: BrowserLoginSpec<LoginValue>,
    context: LoginContext,
  ): Promise<Record<string, string>> {
    const inScope = loginScope(login, String(spec.url));
    const { proxy, pace } = this.options;
    const browser = await ConfinedBrowser.open({
      executablePath: this.options.chromium ?? DEFAULT_CHROMIUM,
      allowed: inScope,
      ...(proxy === undefined ? {} : { connect: (host, port) => new TunnelSocket(proxy, host, port) }),
      ...(pace === undefined ? {} : { pace }),
      decorate: {
        wants: (url) => context.secrets.choose(requestTo('GET', url)) !== undefined,
        apply: (request) => withStaticSecret(request, context),
      },
    });
    const stop = () => void browser.close();
    this.options.signal?.addEventListener('abort', stop, { once: true });
    try {
      return await browserLogin(spec, browser, {
        stepTimeoutMs: Math.max(this.options.timeoutMs ?? 10_000, 5_000),
        outside: (to) => outsideMessage(login, to),
      });
    } finally {
      this.options.signal?.removeEventListener('abort', stop);
      await browser.close();
    }
  }

  private browser(context: LoginContext, refuse: (to: HttpRequest) => string | undefined): LoginBrowser {
    return new LoginBrowser(chain(this.options.dispatch, [withSecrets(context.secrets)]), refuse, {
      timeoutMs: this.options.timeoutMs,
      signal: this.options.signal,
    });
  }

  private async templateLogin(
    login: Login,
    path: string,
    input: string,
    context: LoginContext,
  ): Promise<Record<string, string>> {
    const template = await (this.options.loadTemplate ?? readLoginTemplate)(path);
    const { resolveInput } = this.options;
    const target = resolveInput === undefined || hasScheme(input) ? input : await resolveInput(input);
    const values = new Map<string, string>();
    let matched = false;
    const run = await runTemplate(template, target, {
      ...this.options.run,
      dispatch: chain(this.options.dispatch, [withSecrets(context.secrets)]),
      variables: await loginVariables(login),
      refuseRedirect: loginRedirectRefusal(login, target),
      // Scan runs holding the bounded flow engines may be waiting for this login.
      flowOutsideBound: true,
      ...(this.options.exchangeDeadlines === undefined
        ? {}
        : { exchangeDeadlines: this.options.exchangeDeadlines }),
      timeoutMs: this.options.timeoutMs,
      signal: this.options.signal,
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

/**
 * A page's request within the scope gets the static secret of its destination, as any login
 * request; one whose secret failed its check does not go, never without it.
 */
async function withStaticSecret(
  request: PageRequest,
  context: LoginContext,
): Promise<PageRequest | 'refused' | undefined> {
  const headers = Object.entries(request.headers).filter(([name]) => !name.startsWith(':'));
  const applied = await context.secrets.apply(requestTo(request.method, request.url, headers));
  if (applied.kind === 'error') return 'refused';
  if (applied.kind !== 'applied') return undefined;
  const sent = applied.request;
  const host = sent.hostname.includes(':') ? `[${sent.hostname}]` : sent.hostname;
  return {
    method: request.method,
    url: `${sent.scheme}://${host}:${sent.port}${sent.target}`,
    headers: Object.fromEntries(sent.headers),
  };
}

/** Why the page may not go somewhere: the destination, outside the entry's scope. */
function outsideMessage(login: Login, to: BrowserDestination): string {
  const host = matchKey(to.scheme, to.hostname, to.port).text;
  return (
    `the login page went to ${host}, outside the scope of ${originLabel(login.origin)} and the hosts it logs in at; ` +
    'the browser was kept from going there, so nothing of the login reached it ' +
    `(if ${host} belongs to the app, add it to the entry's domains, or to login.allow: when it is an identity provider)`
  );
}

/** The entry's variables as this login sends them: a `{totp: …}` value is a fresh code. */
async function loginVariables(login: Login): Promise<Record<string, string>> {
  const entries = await Promise.all(
    login.variables.map(async (v) => [v.name, await valueNow(v.value)] as const),
  );
  return Object.fromEntries(entries);
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

/** Why a login run gave no session, said once, without naming the entry (the caller does). */
function loginProblem(
  template: ParsedTemplate,
  login: Login,
  run: TemplateRun,
  matched: boolean,
  values: ReadonlyMap<string, string>,
): string | undefined {
  const name = `the login template ${template.id}`;
  const status =
    run.lastStatus === undefined
      ? 'no response was received'
      : `the last response had status ${run.lastStatus}`;
  const hasMatchers = template.http.some((block) => block.operators.model.matchers.length > 0);
  const missing = login.placeholders.filter((placeholder) => !values.has(placeholder));
  const refused = run.failures.find((f) => f.kind === 'refused' || f.kind === 'host-skipped');
  if (run.flowError !== undefined) return `the flow of ${name} failed: ${run.flowError}`;
  if (refused !== undefined) return refused.message;
  if (run.requests > 0 && (matched || !hasMatchers) && missing.length === 0) return undefined;
  const skipped = run.skipped[0];
  if (skipped !== undefined) return unbuildable(name, login, skipped);
  if (run.requests === 0) {
    const failure = run.failures[0];
    return failure === undefined
      ? `${name} sent no request`
      : `${name} could not send its request to ${failure.url}: ${failure.message}`;
  }
  if (hasMatchers && !matched) return `${name} did not match: the login was probably refused (${status})`;
  const got = values.size === 0 ? 'it extracted nothing' : `it extracted ${[...values.keys()].join(', ')}`;
  const names = missing.map((placeholder) => `{{${placeholder}}}`).join(', ');
  return `${name} gave no value for ${names}: ${got} (${status})`;
}

/** A login request that could not be built: the variables it lacks, and where to give them. */
function unbuildable(name: string, login: Login, skipped: SkippedRequest): string {
  const request = `request ${skipped.request + 1} of block ${skipped.block + 1}`;
  const missing = skipped.missing.filter((variable) => !login.variables.some((v) => v.name === variable));
  if (missing.length === 0) {
    return `${name} cannot build its ${request}: ${skipped.unresolved.join(', ')} cannot be resolved`;
  }
  const list = missing.map((variable) => `"${variable}"`).join(', ');
  const one = missing.length === 1;
  return (
    `${name} cannot build its ${request}: it needs the variable${one ? '' : 's'} ${list}, ` +
    `which the entry does not give; add ${one ? 'it' : 'them'} to the entry's variables: (- {name: ${missing[0]}, value: …})`
  );
}
