import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../store/index.js';
import { ApiError } from '../errors.js';

/** The caller, authenticated by the `/v1` hook before any route runs. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (principal === null) throw new ApiError(401, 'unauthorized', 'missing API key');
  return principal;
}

/** Values of `X-Team-Id` that name no team: nuclei and pd-agent send `none` when none is set. */
const NO_TEAM = new Set(['', 'none']);

/**
 * An `onRequest` hook for the routes that change what a team has: the key must have the write
 * scope, and an `X-Team-Id` header, when sent, must name the key's own team. It runs before the
 * body is read, so a read key's upload costs nothing.
 */
export async function requireWriteScope(request: FastifyRequest): Promise<void> {
  const principal = principalOf(request);
  if (principal.scope !== 'write') {
    throw new ApiError(
      403,
      'forbidden',
      'this API key may only read; create one that may write with `keyhole keys create --scope write`',
    );
  }
  const team = request.headers['x-team-id'];
  if (team === undefined) return;
  if (typeof team !== 'string')
    throw new ApiError(400, 'invalid_parameter', 'send at most one X-Team-Id header', 'X-Team-Id');
  if (NO_TEAM.has(team) || team === principal.teamId) return;
  throw new ApiError(
    403,
    'forbidden',
    `X-Team-Id names another team than this key's (${principal.teamId}); a key writes only to its own team: drop the header or send that id`,
  );
}
