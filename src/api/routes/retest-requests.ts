/**
 * Retests asked for through the API: `POST /v1/scans/{vuln_id}/retest` queues one, `GET
 * /v1/retest/requests/{request_id}` follows it. `keyhole serve` runs them itself on SQLite;
 * `keyhole worker` runs them on PostgreSQL.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { REDACTED } from '../../secretfile/index.js';
import {
  formatTimestamp,
  RETEST_REQUEST_STATES,
  type RetestRequest,
  type Store,
  StoreRequestError,
} from '../../store/index.js';
import { ApiError } from '../errors.js';
import { ERROR_RESPONSES, ErrorBody } from '../schemas.js';
import { principalOf } from './access.js';
import { ID_PATTERN, TeamHeader, WRITE_ERROR_RESPONSES } from './write-schemas.js';

const security = [{ 'X-API-Key': [] }];

const VulnIdParams = Type.Object(
  { vuln_id: Type.String({ pattern: ID_PATTERN, description: 'The finding’s 20-character vuln id.' }) },
  { additionalProperties: false },
);
type VulnIdParams = Static<typeof VulnIdParams>;

const RequestIdParams = Type.Object(
  { request_id: Type.String({ pattern: ID_PATTERN, description: 'The retest request’s id.' }) },
  { additionalProperties: false },
);
type RequestIdParams = Static<typeof RequestIdParams>;

export const RetestRequestResponse = Type.Object({
  message: Type.String(),
  request_id: Type.String(),
  vuln_id: Type.String(),
  status: Type.Unsafe<string>({
    type: 'string',
    enum: [...RETEST_REQUEST_STATES],
    description: 'queued → running → done (the result is in `retest_id`) or failed (`error` says why).',
  }),
  retest_id: Type.Optional(Type.String({ description: 'The retest result, as `GET /v1/retest` lists it.' })),
  error: Type.Optional(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export function retestRequestItem(
  request: RetestRequest,
  message: string,
): Static<typeof RetestRequestResponse> {
  return {
    message,
    request_id: request.id,
    vuln_id: request.vulnId,
    status: request.state,
    ...(request.retestId === undefined ? {} : { retest_id: request.retestId }),
    ...(request.error === undefined ? {} : { error: request.error }),
    created_at: formatTimestamp(request.createdAt),
    updated_at: formatTimestamp(request.updatedAt),
  };
}

/** `POST /v1/scans/{vuln_id}/retest` (registered among the writes: a write key). */
export const retestRequestWrites: FastifyPluginAsync<{ store: Store; onQueued?: () => void }> = async (
  v1,
  { store, onQueued },
) => {
  v1.post(
    '/scans/:vuln_id/retest',
    {
      schema: {
        summary: 'Retest a finding',
        description:
          'Queues a retest of one of the team’s findings: its template, as the scan ran it, re-run on its target in matcher-status mode. `keyhole serve` runs it on SQLite, `keyhole worker` on PostgreSQL; a finding found with a secret waits for a runner given secret files (`--secrets`, `-sf`): secrets are never sent over the API. The result moves the finding to open or fixed (never a status set by hand) and is listed by `GET /v1/retest`; follow the request with `GET /v1/retest/requests/{request_id}`. No body.',
        security,
        headers: TeamHeader,
        params: VulnIdParams,
        response: { 200: RetestRequestResponse, 404: ErrorBody, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId, keyId } = principalOf(request);
      const { vuln_id: vulnId } = request.params as VulnIdParams;
      const finding = await store.findings.get(vulnId, teamId);
      if (finding === undefined) throw notFound(`no finding of this team has the vuln id ${vulnId}`);
      const queued = await store.retestRequests
        .add({
          teamId,
          vulnId,
          requestedBy: `key:${keyId}`,
          needsSecrets: (finding.event.request ?? '').includes(REDACTED),
        })
        .catch((error: unknown) => {
          if (error instanceof StoreRequestError) throw notFound(error.message);
          throw error;
        });
      onQueued?.();
      return retestRequestItem(queued, 'Retest queued');
    },
  );
};

/** `GET /v1/retest/requests/{request_id}` (any key of the team). */
export const retestRequestReads: FastifyPluginAsync<{ store: Store }> = async (v1, { store }) => {
  v1.get(
    '/retest/requests/:request_id',
    {
      schema: {
        summary: 'Follow a retest request',
        description:
          'Where a retest asked for with `POST /v1/scans/{vuln_id}/retest` is. Another team’s is 404.',
        security,
        params: RequestIdParams,
        response: { 200: RetestRequestResponse, ...ERROR_RESPONSES, 404: ErrorBody },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const { request_id: id } = request.params as RequestIdParams;
      const found = await store.retestRequests.get(id, teamId);
      if (found === undefined) throw notFound(`no retest request of this team has the id ${id}`);
      return retestRequestItem(found, `Retest ${found.state}`);
    },
  );
};

function notFound(message: string): ApiError {
  return new ApiError(404, 'not_found', message);
}
