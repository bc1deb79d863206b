import { MeIdentityInput } from './account-inputs';
import { IdentitySchema, type Identity } from './me-view';
import { defineProcedure, notFound } from '@mrp/platform';

export { IdentitySchema, type Identity };

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
  input: MeIdentityInput,
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
