import type { FastifyInstance } from 'fastify';
import { isId } from '../store/index.js';
import { writerForm } from './forms.js';
import { link } from './layout.js';
import { PageError } from './params.js';

/** Starts the team's scan again; the new scan's id, or why not (404: no such scan of the team). */
export type Rescan = (
  scanId: string,
  teamId: string,
) => Promise<{ readonly id: string } | { readonly error: string; readonly status: 400 | 404 }>;

/**
 * `POST /scans/:scanId/rescan`: a write key starts the scan again, with the same targets, templates
 * (as stored) and secret-file entries, as `POST /v1/scans` starts one; then it sees the new scan.
 */
export function registerRescan(app: FastifyInstance, rescan: Rescan): void {
  app.post('/scans/:scanId/rescan', async (request, reply) => {
    const scanId = (request.params as { scanId: string }).scanId;
    const writer = writerForm(request);
    if (writer === undefined) return reply.redirect(link('/sign-in', { next: `/scans/${scanId}` }), 303);
    if (!isId(scanId)) throw new PageError(404, `no scan of your team has the id ${scanId}`);
    const started = await rescan(scanId, writer.principal.teamId);
    if ('error' in started) throw new PageError(started.status, started.error);
    return reply.redirect(`/scans/${started.id}`, 303);
  });
}
