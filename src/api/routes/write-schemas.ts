/** Shapes shared by the `/v1` routes that change what a team has. */
import { type Static, Type } from '@sinclair/typebox';
import { ERROR_RESPONSES, ErrorBody } from '../schemas.js';

/** Every id keyhole makes: a 20-character xid. */
export const ID_PATTERN = '^[0-9a-v]{20}$';

export const IdParams = Type.Object(
  { id: Type.String({ pattern: ID_PATTERN, description: 'A 20-character id.' }) },
  { additionalProperties: false },
);
export type IdParams = Static<typeof IdParams>;

/**
 * The query of an upload: its name; the other parameters nuclei and httpx add (`os`, `arch`,
 * `go_version`, `v`, `machine_id`, `utm_source`) are accepted and ignored.
 */
export const UploadQuery = Type.Object(
  {
    name: Type.Optional(
      Type.String({ maxLength: 256, description: 'The name to give (at most 256 characters, no NUL).' }),
    ),
  },
  { additionalProperties: true },
);
export type UploadQuery = Static<typeof UploadQuery>;

/** What a write route may answer besides its own: a read key, or another team in X-Team-Id, is 403. */
export const WRITE_ERROR_RESPONSES = {
  ...ERROR_RESPONSES,
  403: ErrorBody,
  413: ErrorBody,
} as const;

/** The optional team header nuclei, httpx and pd-agent send: when given, the key's own team id (or `none`). */
export const TeamHeader = Type.Object({
  'x-team-id': Type.Optional(
    Type.String({
      description:
        "The key's own team id, `none` or empty; any other team is 403 (a key writes only to its own team).",
    }),
  ),
});
