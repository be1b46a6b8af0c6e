import type { FastifyPluginAsync } from 'fastify';
import type { Store } from '../../store/index.js';
import type { PageRenderer } from './page.js';
import { resultRoutes } from './results.js';
import { retestRequestReads } from './retest-requests.js';
import { userRoutes } from './user.js';

export interface ReadRouteOptions {
  readonly store: Store;
  readonly page: PageRenderer;
}

/** The `/v1` reads beyond the three listings: the key's profile, one scan, findings, exports. */
export const readRoutes: FastifyPluginAsync<ReadRouteOptions> = async (v1, options) => {
  await v1.register(userRoutes, { store: options.store });
  await v1.register(resultRoutes, options);
  await v1.register(retestRequestReads, { store: options.store });
};
