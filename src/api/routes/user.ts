/** `GET /v1/user`: who a key is. nuclei, httpx and pdtm call it to check a key before using it. */
import type { FastifyPluginAsync } from 'fastify';
import { formatTimestamp, type Store } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { ERROR_RESPONSES } from '../schemas.js';
import { principalOf } from './team.js';
import { UserResponse } from './user-schemas.js';

export const userRoutes: FastifyPluginAsync<{ store: Store }> = async (v1, { store }) => {
  v1.get(
    '/user',
    {
      schema: {
        summary: 'Get the key’s profile',
        description:
          'The API key’s name and team; 200 for a valid key, 401 otherwise. Query parameters (nuclei sends `utm_source`) are ignored.',
        security: [{ 'X-API-Key': [] }],
        response: { 200: UserResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { keyId } = principalOf(request);
      const key = await store.keys.get(keyId);
      // Revoked between the key check and this read.
      if (key === undefined || key.revokedAt !== null)
        throw new ApiError(401, 'unauthorized', 'invalid or revoked API key');
      return {
        message: 'Successfully retrieved user profile',
        name: key.name === '' ? key.prefix : key.name,
        team_id: key.teamId,
        team_name: key.teamName,
        key_id: key.id,
        key_prefix: key.prefix,
        created_at: formatTimestamp(key.createdAt),
      };
    },
  );
};
