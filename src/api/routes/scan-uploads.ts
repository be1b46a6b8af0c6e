import { Readable } from 'node:stream';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type ImportReport, ImportStoppedError, importJsonl } from '../../importer/index.js';
import { formatTimestamp, isStoreUnavailable, type Store, StoreRequestError } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { ErrorBody } from '../schemas.js';
import { principalOf } from './access.js';
import { acceptRawBodies, bodyBytes, MAX_UPLOAD_BYTES } from './raw-body.js';
import { IdParams, TeamHeader, UploadQuery, WRITE_ERROR_RESPONSES } from './write-schemas.js';

const BadLine = Type.Object({
  line: Type.Integer({ description: 'The line of this request’s body, from 1.' }),
  message: Type.String(),
});

export const ScanUploadResponse = Type.Object({
  id: Type.String({ description: 'The scan’s id: append to it with PATCH /v1/scans/{id}/import.' }),
  message: Type.String(),
  imported: Type.Integer({ description: 'Findings added by this request.' }),
  duplicates: Type.Integer({ description: 'Results the scan already had (same vuln hash): skipped.' }),
  unmatched: Type.Integer({ description: '`matcher-status: false` events: not findings, skipped.' }),
  bad_lines: Type.Integer({ description: 'Lines that are not result events: skipped.' }),
  errors: Type.Array(BadLine, { description: 'The first 100 bad lines, by line number in this body.' }),
});
type ScanUploadResponse = Static<typeof ScanUploadResponse>;

const UPLOAD_DESCRIPTION = `The body is nuclei's JSONL (\`nuclei -jsonl\`), as \`nuclei -dashboard\` and \`-pdu\` send it (\`Content-Type: application/octet-stream\`, any other type is read the same way), at most ${MAX_UPLOAD_BYTES >> 20} MiB per request. The same rules as \`keyhole import\`: a result the scan already has (same vuln hash) is skipped, a bad line is reported by its number and skipped. Query parameters other than \`name\` (nuclei sends its version and platform) are ignored.`;

/** `POST /v1/scans/import` and `PATCH /v1/scans/{id}/import`: nuclei's result upload. */
export async function scanUploadRoutes(app: FastifyInstance, options: { store: Store }): Promise<void> {
  const { store } = options;
  acceptRawBodies(app);
  const security = [{ 'X-API-Key': [] }];

  app.post(
    '/scans/import',
    {
      schema: {
        summary: 'Upload nuclei results as a new scan',
        description: `${UPLOAD_DESCRIPTION} The scan is created \`uploaded\`, named \`name\` (default: "upload" and the time). A body without one good line creates nothing: 400.`,
        security,
        headers: TeamHeader,
        querystring: UploadQuery,
        response: { 200: ScanUploadResponse, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const query = request.query as UploadQuery;
      const name = query.name?.trim() || `upload ${formatTimestamp(Date.now())}`;
      const report = await importBody(store, bodyBytes(request.body), { teamId, name });
      if (report.scan === undefined) {
        throw new ApiError(
          400,
          'invalid_body',
          `no result event in the body${firstProblem(report)}; send nuclei's JSONL, one result per line (nothing was created)`,
        );
      }
      return answer(report, report.scan.id, `created scan ${report.scan.id}`);
    },
  );

  app.patch(
    '/scans/:id/import',
    {
      schema: {
        summary: 'Append nuclei results to an uploaded scan',
        description: `${UPLOAD_DESCRIPTION} Only a scan that was uploaded or imported takes more results (409 otherwise); another team's scan is 404.`,
        security,
        headers: TeamHeader,
        params: IdParams,
        querystring: UploadQuery,
        response: { 200: ScanUploadResponse, 404: ErrorBody, 409: ErrorBody, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const { id } = request.params as IdParams;
      const report = await importBody(store, bodyBytes(request.body), { teamId, scanId: id });
      return answer(report, id, `appended to scan ${id}`);
    },
  );
}

async function importBody(
  store: Store,
  body: Buffer,
  target: { teamId: string; name?: string; scanId?: string },
): Promise<ImportReport> {
  try {
    return await importJsonl(store, Readable.from([body]), target);
  } catch (error) {
    throw asApiError(error);
  }
}

function asApiError(error: unknown): unknown {
  if (error instanceof StoreRequestError) {
    return error.kind === 'not_found'
      ? new ApiError(404, 'not_found', error.message)
      : new ApiError(409, 'conflict', error.message);
  }
  // The store went away mid-import: answered 503 (retry the same chunk: what was kept is skipped).
  if (error instanceof ImportStoppedError && isStoreUnavailable(error.cause)) return error.cause;
  return error;
}

function firstProblem(report: ImportReport): string {
  const first = report.errors[0];
  return first === undefined ? ' (it is empty)' : ` (line ${first.line}: ${first.message})`;
}

function answer(report: ImportReport, id: string, done: string): ScanUploadResponse {
  const skipped = report.badLines > 0 ? `; ${count(report.badLines, 'bad line')} skipped` : '';
  return {
    id,
    message: `${done}: ${count(report.imported, 'finding')} added, ${report.duplicates} already in the scan${skipped}`,
    imported: report.imported,
    duplicates: report.duplicates,
    unmatched: report.unmatched,
    bad_lines: report.badLines,
    errors: report.errors.map(({ line, message }) => ({ line, message })),
  };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
