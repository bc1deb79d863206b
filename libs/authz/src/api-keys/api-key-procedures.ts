import { defineProcedure, forbidden, notFound, type Principal } from '@mrp/platform';
import { lockMembershipForShare } from '../organizations/memberships';
import { checkApiKeyAccess } from './api-key-access';
import { ApiKeysCreateInput, ApiKeysListInput, ApiKeysRevokeInput } from './api-key-inputs';
import { createApiKey, listApiKeys, revokeApiKey } from './api-key-store';
import { ApiKeyListSchema, ApiKeyViewSchema, CreatedApiKeySchema } from './api-key-view';

const MANAGE_OWN_KEYS = 'api-keys.manage';

/**
 * A key must not mint keys: a limited key holding `api-keys.manage` could otherwise create a
 * full-access key and step out of its own allowlist.
 */
export function assertNotActingWithApiKey(principal: Principal): void {
  if (principal.credential.type === 'api-key') {
    throw forbidden('API keys are managed from a signed-in session, not with an API key');
  }
}

const listOwnKeys = defineProcedure({
  name: 'apiKeys.list',
  summary: 'Your API keys in the active organization (never their tokens)',
  scope: 'organization',
  permission: MANAGE_OWN_KEYS,
  readOnly: true,
  input: ApiKeysListInput,
  output: ApiKeyListSchema,
  async handler(ctx) {
    assertNotActingWithApiKey(ctx.principal);
    return { items: await listApiKeys(ctx.em, { ownerUserId: ctx.principal.userId, organizationId: ctx.organizationId }) };
  },
});

const createOwnKey = defineProcedure({
  name: 'apiKeys.create',
  summary: 'Creates an API key that acts as you in the active organization; the token is shown once',
  scope: 'organization',
  permission: MANAGE_OWN_KEYS,
  input: ApiKeysCreateInput,
  output: CreatedApiKeySchema,
  async handler(ctx, input) {
    assertNotActingWithApiKey(ctx.principal);
    const access = checkApiKeyAccess(input, ctx.principal.permissions);
    // Held until commit, so a concurrent organizations.removeMember revokes this key too (or we
    // find the membership gone and answer as the door does for a non-member).
    if (!(await lockMembershipForShare(ctx.em, ctx.organizationId, ctx.principal.userId))) throw notFound('Organization');
    return createApiKey(ctx.em, {
      ownerUserId: ctx.principal.userId,
      organizationId: ctx.organizationId,
      createdBy: ctx.principal.userId,
      name: input.name,
      access,
    });
  },
});

const revokeOwnKey = defineProcedure({
  name: 'apiKeys.revoke',
  summary: 'Revokes one of your API keys; it is rejected from the next request on',
  scope: 'organization',
  permission: MANAGE_OWN_KEYS,
  input: ApiKeysRevokeInput,
  output: ApiKeyViewSchema,
  async handler(ctx, input) {
    assertNotActingWithApiKey(ctx.principal);
    const revoked = await revokeApiKey(ctx.em, {
      id: input.id,
      ownerUserId: ctx.principal.userId,
      organizationId: ctx.organizationId,
    });
    if (!revoked) throw notFound('API key');
    return revoked;
  },
});

/** `apiKeys.*`: a principal's own keys only; no procedure reaches another user's personal keys. */
export const apiKeyProcedures = [listOwnKeys, createOwnKey, revokeOwnKey];
