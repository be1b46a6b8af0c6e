import type { FastifyRequest } from 'fastify';
import type { Principal } from '../store/index.js';
import { PageError } from './params.js';
import { requireSameOrigin } from './security.js';
import { tokensMatch } from './sessions.js';

export function formOf(request: FastifyRequest): URLSearchParams {
  if (!(request.body instanceof URLSearchParams))
    throw new PageError(415, 'send the form as application/x-www-form-urlencoded, as the dashboard does');
  return request.body;
}

/**
 * The form of a POST that changes something, and who sent it: refused (403) from another site,
 * without this session's form token, or from a key that may only read.
 * Undefined when the browser is signed out.
 */
export function writerForm(
  request: FastifyRequest,
): { form: URLSearchParams; principal: Principal } | undefined {
  requireSameOrigin(request);
  const signedIn = request.dashboardSession;
  if (signedIn === undefined) return undefined;
  const form = formOf(request);
  if (!tokensMatch(form.get('csrf') ?? '', signedIn.session.csrfToken))
    throw new PageError(403, 'this form had expired; reload the page and send it again');
  if (signedIn.viewer.scope !== 'write')
    throw new PageError(403, 'your API key may only read; sign in with a write key to change anything');
  return { form, principal: signedIn.session.principal };
}
