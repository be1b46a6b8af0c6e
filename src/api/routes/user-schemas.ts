import { Type } from '@sinclair/typebox';

export const UserResponse = Type.Object({
  message: Type.String(),
  name: Type.String({
    description: 'The API key’s name (never empty: nuclei and pdtm refuse a profile without one).',
  }),
  team_id: Type.String(),
  team_name: Type.String(),
  key_id: Type.String(),
  key_prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
  created_at: Type.String({ description: 'When the key was created: RFC 3339 UTC with milliseconds.' }),
});
