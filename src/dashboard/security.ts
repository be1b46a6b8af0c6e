import type { FastifyReply, FastifyRequest } from 'fastify';
import { PageError } from './params.js';

/** No inline script or style, nothing from elsewhere, no framing, forms post only here. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function addSecurityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * A POST that names another origin is refused whatever it carries: the session cookie is
 * SameSite=Strict and forms carry a token, and this refuses what slips past both.
 */
export function requireSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return;
  if (origin !== `${request.protocol}://${request.headers.host ?? ''}`)
    throw new PageError(
      403,
      'this form was sent from another site; open the dashboard and send it from there',
    );
}

/** Where sign-in may send the browser back to: a path of this site, never another host. */
export function safeReturnPath(path: string | undefined): string {
  if (path === undefined || !/^\/(?![/\\])[^\s]*$/.test(path) || path.startsWith('/sign-')) return '/scans';
  return path;
}
