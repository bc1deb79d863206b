import { Type, type Static } from '@sinclair/typebox';
import { defineProcedure, notFound } from '@mrp/platform';

export const IdentitySchema = Type.Object(
  {
    principal: Type.Object({
      id: Type.String(),
      kind: Type.Union([Type.Literal('HUMAN'), Type.Literal('SERVICE')]),
      email: Type.String(),
      displayName: Type.String(),
    }),
    organization: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), slug: Type.String() }),
    apiKey: Type.Union([
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        name: Type.String(),
        prefix: Type.String(),
        fullAccess: Type.Boolean(),
        permissions: Type.Array(Type.String()),
        expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      }),
      Type.Null(),
    ]),
    permissions: Type.Array(Type.String(), { description: 'Effective permissions, sorted' }),
  },
  { $id: 'Identity', description: 'Who the credential acts as, in which organization, with which rights' },
);

export type Identity = Static<typeof IdentitySchema>;

/**
 * The identity a call acts as: served at `GET /api/v1/me` (the API key's view) and at
 * `/rpc/me.identity` (a session's view, `apiKey` null).
 */
export const meIdentityProcedure = defineProcedure({
  name: 'me.identity',
  summary: 'The identity and the organization the credential acts as',
  scope: 'organization',
  permission: null,
  readOnly: true,
  input: Type.Object({}, { additionalProperties: false }),
  output: IdentitySchema,
  async handler(ctx): Promise<Identity> {
    const [organization] = await ctx.em.execute<Array<{ id: string; name: string; slug: string }>>(
      'SELECT id, name, slug FROM organizations WHERE id = ?',
      [ctx.organizationId],
    );
    if (!organization) throw notFound('Organization');
    const { principal } = ctx;
    const credential = principal.credential;
    return {
      principal: { id: principal.userId, kind: principal.kind, email: principal.email, displayName: principal.displayName },
      organization,
      apiKey:
        credential.type === 'api-key'
          ? {
              id: credential.apiKeyId,
              name: credential.name,
              prefix: credential.prefix,
              fullAccess: credential.fullAccess,
              permissions: [...credential.allowlist].sort(),
              expiresAt: credential.expiresAt ? credential.expiresAt.toISOString() : null,
            }
          : null,
      permissions: [...principal.permissions].sort(),
    };
  },
});
