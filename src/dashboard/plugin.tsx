import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/index.js';
import { registerAssetUpload } from './asset-upload.js';
import { parseCookies, serializeCookie } from './cookies.js';
import { formOf } from './forms.js';
import { registerKeys } from './keys.js';
import { renderPage, type Viewer } from './layout.js';
import { ErrorPage } from './pages/error.js';
import { SignInPage } from './pages/sign-in.js';
import { PageError, type Query, text } from './params.js';
import { registerReadPages } from './read-pages.js';
import { type Rescan, registerRescan } from './rescan.js';
import { addSecurityHeaders, requireSameOrigin, safeReturnPath } from './security.js';
import { type Session, type SessionStore, Sessions, tokensMatch } from './sessions.js';
import { STATIC_FILES } from './static.js';
import { registerTriage } from './triage.js';

export interface DashboardOptions {
  readonly store: Store;
  /**
   * Where sessions live: a fresh in-memory set by default; `serve --processes` passes the set its
   * processes share, tests their own to move the clock.
   */
  readonly sessions?: SessionStore;
  /** Told when a retest is queued, so an in-process runner (SQLite) starts it at once. */
  readonly onRetestQueued?: () => void;
  /** Starts a scan again (the Rescan button); without it the scan page has no such button. */
  readonly rescan?: Rescan;
}

const SESSION_COOKIE = 'keyhole_session';
const SIGN_IN_COOKIE = 'keyhole_sign_in';

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession: { id: string; session: Session; viewer: Viewer } | undefined;
  }
}

/**
 * The web dashboard at `/`: sign-in with an API key, then the pages of the key's team; a
 * `write` key may also triage findings.
 * Register it on the API's app: `app.register(dashboard, { store })`.
 */
export async function dashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { store } = options;
  const sessions = options.sessions ?? new Sessions();
  app.decorateRequest('dashboardSession', undefined);
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8192 },
    (_request, body, done) => done(null, new URLSearchParams(String(body))),
  );
  app.addHook('onSend', async (_request, reply, payload) => {
    addSecurityHeaders(reply);
    return payload;
  });
  app.addHook('onRequest', async (request) => {
    const id = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
    if (id === undefined) return;
    const session = await sessions.find(id);
    if (session === undefined) return;
    // A revoked key ends its sessions at once.
    const key = await store.keys.get(session.principal.keyId);
    const team = await store.teams.get(session.principal.teamId);
    if (key === undefined || key.revokedAt !== null || team === undefined) {
      await sessions.close(id);
      return;
    }
    request.dashboardSession = {
      id,
      session,
      viewer: { teamName: team.name, csrfToken: session.csrfToken, scope: key.scope },
    };
  });
  app.setErrorHandler(async (error, request, reply) => {
    const status = error instanceof PageError ? error.status : statusOf(error);
    if (status >= 500) request.log.error({ err: error }, 'dashboard page failed');
    const message =
      error instanceof PageError
        ? error.message
        : status === 413
          ? 'the form is too large'
          : status < 500
            ? 'the request could not be read; send the form from the dashboard'
            : 'the store could not be read; try again in a moment';
    return reply
      .status(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        renderPage(<ErrorPage status={status} message={message} viewer={request.dashboardSession?.viewer} />),
      );
  });

  for (const file of STATIC_FILES) {
    app.get(file.path, async (request, reply) => {
      reply.header('etag', file.etag).header('cache-control', 'no-cache').type(file.type);
      if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
      return file.body;
    });
  }

  app.get('/', async (request, reply) =>
    reply.redirect(request.dashboardSession ? '/scans' : '/sign-in', 303),
  );

  app.get('/sign-in', async (request, reply) => {
    if (request.dashboardSession !== undefined) return reply.redirect('/scans', 303);
    return signInForm(request, reply, 200, undefined);
  });

  app.post('/sign-in', async (request, reply) => {
    requireSameOrigin(request);
    const form = formOf(request);
    const expected = parseCookies(request.headers.cookie).get(SIGN_IN_COOKIE);
    if (expected === undefined || !tokensMatch(form.get('csrf') ?? '', expected)) {
      return signInForm(request, reply, 403, 'The sign-in form had expired; sign in again.');
    }
    const principal = await store.keys.authenticate((form.get('key') ?? '').trim());
    if (principal === undefined) {
      return signInForm(request, reply, 401, 'This API key is not valid, or it was revoked.');
    }
    const { id } = await sessions.open(principal);
    const secure = request.protocol === 'https';
    reply.header('set-cookie', [
      serializeCookie(SESSION_COOKIE, id, { secure }),
      serializeCookie(SIGN_IN_COOKIE, '', { secure, maxAge: 0 }),
    ]);
    return reply.redirect(safeReturnPath(form.get('next') ?? undefined), 303);
  });

  app.post('/sign-out', async (request, reply) => {
    requireSameOrigin(request);
    const signedIn = request.dashboardSession;
    if (signedIn !== undefined) {
      if (!tokensMatch(formOf(request).get('csrf') ?? '', signedIn.session.csrfToken))
        throw new PageError(403, 'this form had expired; reload the page and sign out again');
      await sessions.close(signedIn.id);
    }
    reply.header(
      'set-cookie',
      serializeCookie(SESSION_COOKIE, '', { secure: request.protocol === 'https', maxAge: 0 }),
    );
    return reply.redirect('/sign-in', 303);
  });

  registerReadPages(app, store, options.rescan !== undefined);
  registerTriage(app, store, options.onRetestQueued);
  if (options.rescan !== undefined) registerRescan(app, options.rescan);
  registerAssetUpload(app, store);
  registerKeys(app, store);
}

function signInForm(request: FastifyRequest, reply: FastifyReply, status: number, error: string | undefined) {
  const formToken = randomBytes(32).toString('base64url');
  const next =
    text(request.query as Query, 'next') ??
    (request.body instanceof URLSearchParams ? request.body.get('next') : null);
  reply.header(
    'set-cookie',
    serializeCookie(SIGN_IN_COOKIE, formToken, { secure: request.protocol === 'https', maxAge: 3600 }),
  );
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      renderPage(<SignInPage formToken={formToken} error={error} next={safeReturnPath(next ?? undefined)} />),
    );
}

function statusOf(error: unknown): number {
  const code = (error as { statusCode?: unknown }).statusCode;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 500;
}
