import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';
import { requireWriteScope } from './access.js';
import { assetUploadRoutes } from './asset-uploads.js';
import { retestRequestWrites } from './retest-requests.js';
import { scanUploadRoutes } from './scan-uploads.js';
import { triageRoutes } from './triage.js';

/**
 * The `/v1` routes that change what a team has (registered inside `/v1`, after authentication):
 * each needs a key with the write scope, checked before the request's body is read.
 */
export async function writeRoutes(
  v1: FastifyInstance,
  options: { store: Store; onRetestQueued?: (() => void) | undefined },
): Promise<void> {
  v1.addHook('onRequest', requireWriteScope);
  const { store } = options;
  await v1.register(scanUploadRoutes, { store });
  await v1.register(assetUploadRoutes, { store });
  await v1.register(triageRoutes, { store });
  await v1.register(retestRequestWrites, {
    store: options.store,
    ...(options.onRetestQueued === undefined ? {} : { onQueued: options.onRetestQueued }),
  });
}
