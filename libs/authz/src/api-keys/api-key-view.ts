import { Type, type Static } from '@sinclair/typebox';

export type ApiKeyStatus = 'active' | 'revoked' | 'expired';

const timestamp = Type.String({ format: 'date-time' });
const optionalTimestamp = Type.Union([timestamp, Type.Null()]);

/** What a keys page shows about a key: never the token, never its hash. */
export const ApiKeyViewSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    prefix: Type.String(),
    fullAccess: Type.Boolean(),
    permissions: Type.Array(Type.String()),
    expiresAt: optionalTimestamp,
    revokedAt: optionalTimestamp,
    lastUsedAt: optionalTimestamp,
    createdAt: timestamp,
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
  },
  { additionalProperties: false },
);

export type ApiKeyView = Static<typeof ApiKeyViewSchema>;

/** The answer to a create: the record plus the plaintext token, shown this once. */
export const CreatedApiKeySchema = Type.Composite([ApiKeyViewSchema, Type.Object({ token: Type.String() })], {
  additionalProperties: false,
});

export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

export const ApiKeyListSchema = Type.Object({ items: Type.Array(ApiKeyViewSchema) }, { additionalProperties: false });
