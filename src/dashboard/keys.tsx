import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiKeyInfo, isId, isKeyScope, type KeyScope, type Store } from '../store/index.js';
import { writerForm } from './forms.js';
import { link, renderPage } from './layout.js';
import { KeysPage } from './pages/keys.js';
import { PageError } from './params.js';

const MAX_KEY_NAME = 100;

/** `/keys`: a write key lists, creates and revokes its team's keys. */
export function registerKeys(app: FastifyInstance, store: Store): void {
  app.get('/keys', async (request, reply) => {
    const signedIn = request.dashboardSession;
    if (signedIn === undefined) return reply.redirect(link('/sign-in', { next: '/keys' }), 303);
    if (signedIn.viewer.scope !== 'write')
      throw new PageError(403, 'your API key may only read; sign in with a write key to manage keys');
    return keysPage(store, request, reply, undefined);
  });

  app.post('/keys', async (request, reply) => {
    const writer = writerForm(request);
    if (writer === undefined) return reply.redirect(link('/sign-in', { next: '/keys' }), 303);
    const name = nameOf(writer.form.get('name'));
    const scope = scopeOf(writer.form.get('scope'));
    const created = await store.keys.create({ teamId: writer.principal.teamId, name, scope });
    return keysPage(store, request, reply, created);
  });

  app.post('/keys/:keyId/revoke', async (request, reply) => {
    const writer = writerForm(request);
    if (writer === undefined) return reply.redirect(link('/sign-in', { next: '/keys' }), 303);
    const keyId = (request.params as { keyId: string }).keyId;
    const key = isId(keyId) ? await store.keys.get(keyId) : undefined;
    if (key === undefined || key.teamId !== writer.principal.teamId)
      throw new PageError(404, `no key of your team has the id ${keyId}`);
    await store.keys.revoke(key.id);
    // Revoking this session's own key signs it out on the next request.
    return reply.redirect('/keys', 303);
  });
}

async function keysPage(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  created: { key: ApiKeyInfo; secret: string } | undefined,
) {
  const signedIn = request.dashboardSession;
  if (signedIn === undefined) throw new PageError(401, 'signed out; sign in again');
  const { teamId, keyId } = signedIn.session.principal;
  const keys = await store.keys.ofTeam(teamId);
  const html = renderPage(
    <KeysPage viewer={signedIn.viewer} view={{ keys, currentKeyId: keyId, created }} />,
  );
  // The page may hold a new key's secret: never kept by a cache.
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

function nameOf(value: string | null): string {
  const name = (value ?? '').trim();
  if (name === '') throw new PageError(400, 'name: give the key a name, such as the tool or person using it');
  if (name.length > MAX_KEY_NAME) throw new PageError(400, `name: at most ${MAX_KEY_NAME} characters`);
  return name;
}

function scopeOf(value: string | null): KeyScope {
  if (value === null || !isKeyScope(value))
    throw new PageError(400, `scope: "${(value ?? '').slice(0, 64)}" is not one of read, write`);
  return value;
}
