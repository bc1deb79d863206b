import { defineProcedure, notFound, validationFailed } from '@mrp/platform';
import { assertWithinGrantCeiling, assertWithinRoleCeiling, type RowAccessRoles } from '../access/grant-ceiling';
import { loadOrganizationAccess } from '../access/organization-access';
import { checkApiKeyAccess } from '../api-keys/api-key-access';
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from '../api-keys/api-key-store';
import { ApiKeyListSchema, ApiKeyViewSchema, CreatedApiKeySchema } from '../api-keys/api-key-view';
import { assertNotActingWithApiKey } from '../api-keys/api-key-procedures';
import { MANAGE_SERVICE_ACCOUNTS, SERVICE_ACCOUNTS_FLAG } from './service-account-gate';
import { ServiceAccountKeysCreateInput, ServiceAccountKeysListInput, ServiceAccountKeysRevokeInput } from './service-account-inputs';
import { findServiceAccount, lockServiceAccountMembership, serviceAccountPermissions } from './service-account-store';

/**
 * `serviceAccounts.keys.*`: keys owned by a service account of the active organization. The owner
 * is always looked up as a live SERVICE member of the organization first, so no id can reach a
 * human's personal keys through here.
 */
export function createServiceAccountKeyProcedures(deps: { rowAccessRoles: RowAccessRoles }) {
  const list = defineProcedure({
    name: 'serviceAccounts.keys.list',
    summary: "A service account's API keys (never their tokens)",
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    readOnly: true,
    input: ServiceAccountKeysListInput,
    output: ApiKeyListSchema,
    async handler(ctx, input) {
      assertNotActingWithApiKey(ctx.principal);
      if (!(await findServiceAccount(ctx.em, ctx.organizationId, input.serviceAccountId))) throw notFound('Service account');
      return { items: await listApiKeys(ctx.em, { ownerUserId: input.serviceAccountId, organizationId: ctx.organizationId }) };
    },
  });

  const create = defineProcedure({
    name: 'serviceAccounts.keys.create',
    summary: 'Creates an API key that acts as a service account; the token is shown once',
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    input: ServiceAccountKeysCreateInput,
    output: CreatedApiKeySchema,
    async handler(ctx, input) {
      assertNotActingWithApiKey(ctx.principal);
      // The account's membership stays share-locked until commit, so the key cannot outlive a
      // concurrent removal of the account (serviceAccounts.delete, organizations.removeMember).
      if (!(await lockServiceAccountMembership(ctx.em, ctx.organizationId, input.serviceAccountId))) {
        throw notFound('Service account');
      }
      // Any key of the account, limited or not, sees the records its roles are given.
      const accountRoleIds = (await loadOrganizationAccess(ctx.em, input.serviceAccountId, ctx.organizationId))?.roleIds ?? [];
      await assertWithinRoleCeiling(ctx.em, deps.rowAccessRoles, ctx.principal, ctx.organizationId, accountRoleIds, 'act-as', 'create a key for an account holding');
      const access = checkApiKeyAccess(input, ctx.principal.permissions);
      if (access.fullAccess) {
        // A full-access key carries everything the account holds; whoever mints it must hold that too.
        const beyond = (await serviceAccountPermissions(ctx.em, ctx.organizationId, input.serviceAccountId)).filter(
          (permission) => !ctx.principal.permissions.has(permission),
        );
        if (beyond.length > 0) {
          throw validationFailed([
            {
              field: 'fullAccess',
              code: 'invalid_option',
              message: `the service account holds permissions you do not: ${beyond.join(', ')}; create a limited key`,
            },
          ]);
        }
      }
      return createApiKey(ctx.em, {
        ownerUserId: input.serviceAccountId,
        organizationId: ctx.organizationId,
        createdBy: ctx.principal.userId,
        name: input.name,
        access,
      });
    },
  });

  const revoke = defineProcedure({
    name: 'serviceAccounts.keys.revoke',
    summary: "Revokes one of a service account's API keys",
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    input: ServiceAccountKeysRevokeInput,
    output: ApiKeyViewSchema,
    async handler(ctx, input) {
      assertNotActingWithApiKey(ctx.principal);
      if (!(await findServiceAccount(ctx.em, ctx.organizationId, input.serviceAccountId))) throw notFound('Service account');
      const scope = { id: input.id, ownerUserId: input.serviceAccountId, organizationId: ctx.organizationId };
      const key = await findApiKey(ctx.em, scope);
      if (!key) throw notFound('API key');
      // Revoking takes away what the key can do (a full key: all the account holds; a limited one:
      // its allowlist within that), so it meets the same ceiling as minting it: an admin may revoke
      // the limited keys they could have made, not an owner-level account's full key.
      const accountPermissions = new Set(await serviceAccountPermissions(ctx.em, ctx.organizationId, input.serviceAccountId));
      const carried = key.fullAccess ? [...accountPermissions] : key.permissions.filter((permission) => accountPermissions.has(permission));
      assertWithinGrantCeiling(ctx.principal, carried, 'revoke a key carrying');
      const revoked = await revokeApiKey(ctx.em, scope);
      if (!revoked) throw notFound('API key');
      return revoked;
    },
  });

  return [list, create, revoke];
}
