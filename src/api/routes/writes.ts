import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';
import { requireWriteScope } from './access.js';
import { assetUploadRoutes } from './asset-uploads.js';
import { scanUploadRoutes } from './scan-uploads.js';
import { triageRoutes } from './triage.js';

/**
 * The `/v1` routes that change what a team has (registered inside `/v1`, after authentication):
 * each needs a key with the write scope, checked before the request's body is read.
 */
export async function writeRoutes(v1: FastifyInstance, options: { store: Store }): Promise<void> {
  v1.addHook('onRequest', requireWriteScope);
  await v1.register(scanUploadRoutes, options);
  await v1.register(assetUploadRoutes, options);
  await v1.register(triageRoutes, options);
}
