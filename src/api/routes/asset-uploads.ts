import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type AssetList, formatTimestamp, type Store } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { ErrorBody } from '../schemas.js';
import { principalOf } from './access.js';
import { type AssetLines, readAssetLines, targetKey } from './asset-lines.js';
import { acceptRawBodies, bodyBytes, MAX_UPLOAD_BYTES } from './raw-body.js';
import { ID_PATTERN, TeamHeader, UploadQuery, WRITE_ERROR_RESPONSES } from './write-schemas.js';

const SkipInvalid = Type.Optional(
  Type.Boolean({ description: 'Store the good lines when some are bad (by default nothing is stored).' }),
);

const AssetUploadQuery = Type.Composite([UploadQuery, Type.Object({ skip_invalid: SkipInvalid })], {
  additionalProperties: true,
});
type AssetUploadQuery = Static<typeof AssetUploadQuery>;

const ContentsQuery = Type.Object(
  {
    upload_type: Type.Optional(
      Type.String({
        description:
          '`append` (the default: httpx sends its second and later chunks without the parameter) adds the lines after the list’s own; `replace` makes them the list’s only targets.',
      }),
    ),
    skip_invalid: SkipInvalid,
  },
  { additionalProperties: true },
);
type ContentsQuery = Static<typeof ContentsQuery>;

const AssetIdParams = Type.Object(
  { asset_id: Type.String({ pattern: ID_PATTERN, description: 'The asset list’s 20-character id.' }) },
  { additionalProperties: false },
);
type AssetIdParams = Static<typeof AssetIdParams>;

export const AssetUploadResponse = Type.Object({
  message: Type.String(),
  upload_status: Type.String({ description: '"completed": the targets are stored when the answer comes.' }),
  asset_id: Type.String(),
  uploaded_at: Type.String({ description: 'RFC 3339 UTC with milliseconds.' }),
  name: Type.String(),
  asset_count: Type.Integer({ description: 'Targets the list holds now.' }),
  duplicates: Type.Integer({
    description: 'Lines dropped because they repeat a target of the list or of the body.',
  }),
});
type AssetUploadResponse = Static<typeof AssetUploadResponse>;

const BODY_RULES = `One target per line (a URL, a host, host:port, an IP address; blank lines and \`#\` comments ignored, duplicates dropped, as \`keyhole assets upload\` reads a file), or one httpx JSON result per line (\`httpx -json\`, what \`httpx -dashboard\` sends), whose \`url\` is the target. Read as bytes whatever the Content-Type, at most ${MAX_UPLOAD_BYTES >> 20} MiB per request. A bad line makes the request 400 and stores nothing, unless \`skip_invalid=true\`. Query parameters httpx adds (its version and platform) are ignored.`;

/** `POST /v1/assets` and `PATCH /v1/assets/{asset_id}/contents`: httpx's asset upload. */
export async function assetUploadRoutes(app: FastifyInstance, options: { store: Store }): Promise<void> {
  const { store } = options;
  acceptRawBodies(app);
  const security = [{ 'X-API-Key': [] }];

  app.post(
    '/assets',
    {
      schema: {
        summary: 'Upload an asset list',
        description: `${BODY_RULES} The list is named \`name\` (default: "upload" and the time).`,
        security,
        headers: TeamHeader,
        querystring: AssetUploadQuery,
        response: { 200: AssetUploadResponse, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const query = request.query as AssetUploadQuery;
      const lines = usable(await readAssetLines(bodyBytes(request.body)), query.skip_invalid === true);
      const list = await store.assets.create({
        teamId,
        name: query.name?.trim() || `upload ${formatTimestamp(Date.now())}`,
        targets: lines.targets,
      });
      return answer(list, lines, 'Successfully uploaded asset');
    },
  );

  app.patch(
    '/assets/:asset_id/contents',
    {
      schema: {
        summary: 'Append to or replace the targets of an asset list',
        description: `${BODY_RULES} The targets are added after the list's own (those it has are dropped as duplicates), as httpx expects of its chunks, which it sends without \`upload_type\`; with \`upload_type=replace\` they replace the list's targets. Another team's list is 404.`,
        security,
        headers: TeamHeader,
        params: AssetIdParams,
        querystring: ContentsQuery,
        response: { 200: AssetUploadResponse, 404: ErrorBody, ...WRITE_ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { teamId } = principalOf(request);
      const { asset_id: id } = request.params as AssetIdParams;
      const query = request.query as ContentsQuery;
      const mode = uploadMode(query.upload_type);
      const lines = usable(await readAssetLines(bodyBytes(request.body)), query.skip_invalid === true);
      const written = await store.assets.write(id, teamId, lines.targets, mode, targetKey);
      if (written === undefined) throw notFound(id);
      // Targets the list already had are dropped as duplicates too.
      const dropped = lines.targets.length - written.added;
      return answer(
        written.list,
        { ...lines, duplicates: lines.duplicates + dropped },
        mode === 'append' ? 'Successfully appended to asset' : 'Successfully replaced asset',
      );
    },
  );
}

const UPLOAD_TYPES = ['append', 'replace'] as const;

/** httpx PATCHes its later chunks with no `upload_type` and means them to be added: append is the default. */
function uploadMode(uploadType: string | undefined): (typeof UPLOAD_TYPES)[number] {
  if (uploadType === undefined || uploadType === '') return 'append';
  const mode = UPLOAD_TYPES.find((type) => type === uploadType);
  if (mode !== undefined) return mode;
  throw new ApiError(
    400,
    'invalid_parameter',
    `upload_type: "${uploadType}" is not one of ${UPLOAD_TYPES.join(', ')} (leave it out to append)`,
    'upload_type',
  );
}

function notFound(id: string): ApiError {
  return new ApiError(404, 'not_found', `no asset list of this team has the id ${id}`);
}

/** The lines, unless some are bad and the caller did not ask to skip them, or none is a target. */
function usable(lines: AssetLines, skipInvalid: boolean): AssetLines {
  const [first] = lines.problems;
  if (first !== undefined && !skipInvalid) {
    throw new ApiError(
      400,
      'invalid_body',
      `${lines.problems.length} line(s) of the body are not targets, the first line ${first.line}: ${first.message}; nothing stored (fix them, or add skip_invalid=true to store the rest)`,
    );
  }
  if (lines.targets.length === 0 && lines.duplicates === 0) {
    throw new ApiError(400, 'invalid_body', 'the body holds no targets; nothing stored');
  }
  return lines;
}

function answer(list: AssetList, lines: AssetLines, message: string): AssetUploadResponse {
  return {
    message,
    upload_status: 'completed',
    asset_id: list.id,
    uploaded_at: formatTimestamp(list.uploadedAt),
    name: list.name,
    asset_count: list.assetCount,
    duplicates: lines.duplicates,
  };
}
