/**
 * `POST /v1/scans`: a scan started through the API. The route checks the body's shape and the team;
 * what the scan runs (templates chosen in the server's templates folder, the secret file named) and
 * where it runs (`keyhole worker` on PostgreSQL, `keyhole serve` itself on SQLite) is the server's.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { ErrorBody } from '../schemas.js';
import { principalOf } from './access.js';
import { ID_PATTERN, TeamHeader, WRITE_ERROR_RESPONSES } from './write-schemas.js';

const security = [{ 'X-API-Key': [] }];

const NAME_LIST = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 1000, description });

export const ScanRequestBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The scan’s name.' })),
    targets: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
        minItems: 1,
        maxItems: 10_000,
        description: 'URLs or hosts to scan (or give `asset_id`).',
      }),
    ),
    asset_id: Type.Optional(
      Type.String({ pattern: ID_PATTERN, description: 'One of the team’s assets: its targets are scanned.' }),
    ),
    templates: Type.Optional(
      NAME_LIST(
        'Template files or folders, relative to the server’s templates folder (`serve --templates-dir`).',
      ),
    ),
    tags: Type.Optional(NAME_LIST('Templates with any of these tags (as `keyhole scan -tags`).')),
    template_ids: Type.Optional(NAME_LIST('Templates with these ids (as `keyhole scan -id`).')),
    secret_file: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'One of the secret files the server was started with (`serve --secrets FILE`), by the path as given there or its file name; secrets are never sent over the API.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ScanRequestBody = Static<typeof ScanRequestBody>;

export const ScanStartedResponse = Type.Object({
  id: Type.String({ description: 'The new scan’s id (`GET /v1/scans/{scan_id}` follows it).' }),
  message: Type.String(),
});

/** Why a scan cannot start, naming the body parameter at fault (or a 404: an asset of another team). */
export class ScanRequestError extends Error {
  constructor(
    message: string,
    readonly parameter: string,
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
  }
}

/** Starts a scan for a team (queued for workers, or run by the server); its id. */
export type ScanStarter = (
  request: ScanRequestBody,
  teamId: string,
) => Promise<{ id: string; message: string }>;

/** `POST /v1/scans` (registered among the writes: a write key). */
export const scanRequestWrites: FastifyPluginAsync<{ startScan: ScanStarter | undefined }> = async (
  v1,
  { startScan },
) => {
  v1.post(
    '/scans',
    {
      attachValidation: true,
      schema: {
        summary: 'Start a scan',
        description:
          'Starts a scan of `targets` (or the targets of the asset `asset_id`) with the templates chosen in the server’s templates folder by `templates` (paths in it), `tags` and `template_ids`, as `keyhole scan -t/-tags/-id` choose them; a path outside the folder is refused. `secret_file` names one of the secret files the server was started with: secrets are never sent over the API. On PostgreSQL the scan is queued for `keyhole worker`; on SQLite `keyhole serve` runs it. A parameter that cannot be used is a 400 naming it; an asset of another team is a 404.',
        security,
        headers: TeamHeader,
        body: ScanRequestBody,
        response: { 200: ScanStartedResponse, 404: ErrorBody, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const body = checkedBody(request);
      if (startScan === undefined) throw new ApiError(503, 'unavailable', 'this server does not start scans');
      try {
        return await startScan(body, teamId);
      } catch (error) {
        if (!(error instanceof ScanRequestError)) throw error;
        if (error.status === 404) throw new ApiError(404, 'not_found', error.message);
        throw new ApiError(400, 'invalid_parameter', `${error.parameter}: ${error.message}`, error.parameter);
      }
    },
  );
};

/** The body, or a 400 naming the parameter the schema refused. */
function checkedBody(request: FastifyRequest): ScanRequestBody {
  const error = request.validationError as
    | (Error & { validation?: { keyword: string; instancePath: string; params: Record<string, unknown> }[] })
    | undefined;
  if (error === undefined) {
    const body = request.body as ScanRequestBody | null | undefined;
    if (body !== null && typeof body === 'object') return body;
    throw new ApiError(400, 'invalid_parameter', 'send a JSON object (Content-Type: application/json)');
  }
  const issue = error.validation?.[0];
  if (issue?.keyword === 'additionalProperties') {
    const name = String(issue.params.additionalProperty);
    const allowed = Object.keys(ScanRequestBody.properties).join(', ');
    throw new ApiError(400, 'invalid_parameter', `unknown parameter ${name}; give: ${allowed}`, name);
  }
  const name = issue?.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  if (name === '')
    throw new ApiError(400, 'invalid_parameter', 'send a JSON object of the scan’s parameters');
  throw new ApiError(400, 'invalid_parameter', `${name}: ${error.message.replace(/^body\/\S+ /, '')}`, name);
}
