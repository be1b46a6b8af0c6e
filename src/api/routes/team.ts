import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../store/index.js';
import { ApiError } from '../errors.js';

/** The caller the `/v1` key check let in: every read of a route is limited to its team. */
export function principalOf(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (principal === null) throw new ApiError(401, 'unauthorized', 'missing API key');
  return principal;
}

export function teamOf(request: FastifyRequest): string {
  return principalOf(request).teamId;
}
