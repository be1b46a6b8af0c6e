import type { FastifyInstance } from 'fastify';
import { REDACTED } from '../secretfile/index.js';
import { isId, type Store, StoreRequestError, VULN_STATUSES, type VulnStatus } from '../store/index.js';
import { writerForm } from './forms.js';
import { link } from './layout.js';
import { PageError } from './params.js';

/**
 * `POST /findings/:vulnId/status`: a write key sets a finding's status; `POST
 * /findings/:vulnId/retest`: it queues a retest (as the API's `POST /v1/scans/{vuln_id}/retest`).
 * Either way it then sees the finding again.
 */
export function registerTriage(app: FastifyInstance, store: Store, onRetestQueued?: () => void): void {
  app.post('/findings/:vulnId/retest', async (request, reply) => {
    const vulnId = (request.params as { vulnId: string }).vulnId;
    const writer = writerForm(request);
    if (writer === undefined) return reply.redirect(link('/sign-in', { next: `/findings/${vulnId}` }), 303);
    const { teamId, keyId } = writer.principal;
    const finding = isId(vulnId) ? await store.findings.get(vulnId, teamId) : undefined;
    if (finding === undefined) throw new PageError(404, `no finding of your team has the id ${vulnId}`);
    await store.retestRequests.add({
      teamId,
      vulnId,
      requestedBy: `key:${keyId}`,
      needsSecrets: (finding.event.request ?? '').includes(REDACTED),
    });
    onRetestQueued?.();
    return reply.redirect(`/findings/${vulnId}`, 303);
  });

  app.post('/findings/:vulnId/status', async (request, reply) => {
    const vulnId = (request.params as { vulnId: string }).vulnId;
    const writer = writerForm(request);
    if (writer === undefined) return reply.redirect(link('/sign-in', { next: `/findings/${vulnId}` }), 303);
    const status = statusOf(writer.form.get('status'));
    const notFound = new PageError(404, `no finding of your team has the id ${vulnId}`);
    if (!isId(vulnId)) throw notFound;
    const { teamId, keyId } = writer.principal;
    await store.triage.setStatus(teamId, [vulnId], status, `key:${keyId}`).catch((error: unknown) => {
      throw error instanceof StoreRequestError && error.kind === 'not_found' ? notFound : error;
    });
    return reply.redirect(`/findings/${vulnId}`, 303);
  });
}

function statusOf(value: string | null): VulnStatus {
  if (value === null || value === '')
    throw new PageError(400, `status: choose one of ${VULN_STATUSES.join(', ')}`);
  if (!(VULN_STATUSES as readonly string[]).includes(value))
    throw new PageError(400, `status: "${value.slice(0, 64)}" is not one of ${VULN_STATUSES.join(', ')}`);
  return value as VulnStatus;
}
