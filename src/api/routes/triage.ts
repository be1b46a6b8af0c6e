import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  MAX_TRIAGE_IDS,
  type Store,
  StoreRequestError,
  VULN_STATUSES,
  type VulnStatus,
} from '../../store/index.js';
import { ApiError } from '../errors.js';
import { ErrorBody } from '../schemas.js';
import { principalOf } from './access.js';
import { ID_PATTERN, TeamHeader, WRITE_ERROR_RESPONSES } from './write-schemas.js';

const TriageBody = Type.Object(
  {
    vuln_status: Type.Unsafe<VulnStatus>({
      type: 'string',
      enum: [...VULN_STATUSES],
      description: `The status to set: ${VULN_STATUSES.join(', ')}.`,
    }),
    vuln_ids: Type.Array(Type.String({ pattern: ID_PATTERN }), {
      minItems: 1,
      maxItems: MAX_TRIAGE_IDS,
      description: `The findings' vuln ids (1 to ${MAX_TRIAGE_IDS}).`,
    }),
  },
  { additionalProperties: false },
);
type TriageBody = Static<typeof TriageBody>;

const TriageResponse = Type.Object({
  message: Type.String(),
  updated: Type.Integer({ description: 'Findings whose status changed.' }),
  unchanged: Type.Integer({ description: 'Findings that already had that status.' }),
});

const ScanIdParams = Type.Object(
  { scan_id: Type.String({ pattern: ID_PATTERN, description: 'The scan’s 20-character id.' }) },
  { additionalProperties: false },
);
type ScanIdParams = Static<typeof ScanIdParams>;

const MessageResponse = Type.Object({ message: Type.String() });

/** Room for {@link MAX_TRIAGE_IDS} ids in a JSON body, well above the API's 16 KB. */
const TRIAGE_BODY_LIMIT = 64 * 1024;

/** `PATCH /v1/scans/vulns` (triage) and `DELETE /v1/scans/{scan_id}`. */
export async function triageRoutes(app: FastifyInstance, options: { store: Store }): Promise<void> {
  const { store } = options;
  const security = [{ 'X-API-Key': [] }];

  app.patch(
    '/scans/vulns',
    {
      bodyLimit: TRIAGE_BODY_LIMIT,
      attachValidation: true,
      schema: {
        summary: 'Set the status of findings',
        description:
          'Triage: sets `vuln_status` of the listed findings of the key’s team, all or nothing (an id the team does not have is 404 and nothing changes). Each change is kept in the finding’s status history with the key that made it and when. A retest never changes a status set here, except `open` and `fixed`.',
        security,
        headers: TeamHeader,
        body: TriageBody,
        response: { 200: TriageResponse, 404: ErrorBody, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      refuseInvalidBody(request);
      const { teamId, keyId } = principalOf(request);
      const body = request.body as TriageBody;
      const unique = new Set(body.vuln_ids).size;
      const changes = await store.triage
        .setStatus(teamId, body.vuln_ids, body.vuln_status, `key:${keyId}`)
        .catch(notFoundAs404);
      return {
        message: `${changes.length} findings set to ${body.vuln_status}`,
        updated: changes.length,
        unchanged: unique - changes.length,
      };
    },
  );

  app.delete(
    '/scans/:scan_id',
    {
      schema: {
        summary: 'Delete a scan',
        description:
          'Deletes one of the team’s scans with its findings, their retests and status history. A scan still queued, starting or running is 409: it can be deleted once it ends. Another team’s scan is 404.',
        security,
        headers: TeamHeader,
        params: ScanIdParams,
        response: { 200: MessageResponse, 404: ErrorBody, 409: ErrorBody, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const { scan_id: scanId } = request.params as ScanIdParams;
      await store.scans.delete(scanId, teamId).catch(notFoundAs404);
      return { message: `deleted scan ${scanId}` };
    },
  );
}

function notFoundAs404(error: unknown): never {
  if (error instanceof StoreRequestError) {
    throw error.kind === 'not_found'
      ? new ApiError(404, 'not_found', error.message)
      : new ApiError(409, 'conflict', error.message);
  }
  throw error;
}

interface BodyIssue {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** A body that is not the schema's, answered 400 naming the field and what it must be. */
function refuseInvalidBody(request: FastifyRequest): void {
  const error = request.validationError as (Error & { validation?: BodyIssue[] }) | undefined;
  if (error === undefined) return;
  const issue = error.validation?.[0];
  const field = issue?.instancePath.replace(/^\//, '').replace(/\//g, '.') ?? '';
  const fail = (param: string, message: string) => new ApiError(400, 'invalid_parameter', message, param);
  if (issue === undefined)
    throw fail('body', 'the body must be a JSON object: {"vuln_status": …, "vuln_ids": […]}');
  if (issue.keyword === 'required') {
    const missing = String(issue.params.missingProperty);
    throw fail(missing, `${missing}: required; the body is {"vuln_status": …, "vuln_ids": […]}`);
  }
  if (issue.keyword === 'additionalProperties') {
    const extra = String(issue.params.additionalProperty);
    throw fail(extra, `unknown field "${extra}"; the body takes vuln_status and vuln_ids`);
  }
  if (field === 'vuln_status') throw fail(field, `vuln_status: must be one of ${VULN_STATUSES.join(', ')}`);
  if (field.startsWith('vuln_ids')) {
    throw fail(
      'vuln_ids',
      `${field}: must be a list of 1 to ${MAX_TRIAGE_IDS} vuln ids (20 characters of 0-9 and a-v each)`,
    );
  }
  throw fail(
    field === '' ? 'body' : field,
    `${field === '' ? 'the body' : field}: ${issue.message ?? 'invalid'}`,
  );
}
