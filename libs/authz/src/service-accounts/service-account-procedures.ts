import type { EntityManager } from '@mikro-orm/postgresql';
import { defineProcedure, newId, notFound, validationFailed, type ProcedureContext } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { assertWithinGrantCeiling, assertWithinRoleCeiling, type RowAccessRoles } from '../access/grant-ceiling';
import { Membership, Role, RoleGrant, User } from '../identity/entities';
import { revokeAllApiKeysOf } from '../api-keys/api-key-store';
import { assertNotActingWithApiKey } from '../api-keys/api-key-procedures';
import { MANAGE_SERVICE_ACCOUNTS, SERVICE_ACCOUNTS_FLAG } from './service-account-gate';
import { newServiceAccountId, serviceAccountEmail } from './service-account-identity';
import { ServiceAccountByIdInput, ServiceAccountsCreateInput, ServiceAccountsListInput, ServiceAccountsUpdateInput } from './service-account-inputs';
import {
  deleteServiceAccount,
  findServiceAccount,
  listServiceAccounts,
  serviceAccountPermissions,
  setServiceAccountDisabled,
  updateServiceAccount,
} from './service-account-store';
import { DeletedServiceAccountSchema, ServiceAccountListSchema, ServiceAccountViewSchema, type ServiceAccountView } from './service-account-view';

/**
 * The roles named by `roleKeys` in the organization. Granting roles at creation is what
 * rbac.roles.assign does, so it needs the same permission (rbac.manage, declared on the
 * procedure) and meets the same ceiling (403 for a role carrying a permission the caller lacks);
 * unknown keys are a 400.
 */
async function rolesGrantableBy(
  ctx: ProcedureContext<'organization'>,
  rowAccessRoles: RowAccessRoles,
  roleKeys: readonly string[],
): Promise<Array<{ id: string; key: string }>> {
  if (roleKeys.length === 0) return [];
  const roles = await ctx.em.find(Role, { organizationId: ctx.organizationId, key: { $in: [...roleKeys] } });
  const byKey = new Map(roles.map((role) => [role.key, role]));
  const unknown = roleKeys.filter((key) => !byKey.has(key));
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map((key) => ({ field: 'roleKeys', code: 'invalid_option', message: `"${key}" is not a role of this organization` })),
    );
  }
  assertWithinGrantCeiling(ctx.principal, roles.flatMap((role) => role.permissions), 'grant');
  await assertWithinRoleCeiling(ctx.em, rowAccessRoles, ctx.principal, ctx.organizationId, roles.map((role) => role.id), 'grant', 'grant');
  return roleKeys.flatMap((key) => {
    const role = byKey.get(key);
    return role ? [{ id: role.id, key }] : [];
  });
}

async function requireServiceAccount(em: EntityManager, organizationId: string, id: string): Promise<ServiceAccountView> {
  const account = await findServiceAccount(em, organizationId, id);
  if (!account) throw notFound('Service account');
  return account;
}

/**
 * The organization's service account, refused (403) when it holds a permission the caller lacks:
 * as organizations.removeMember will not let an admin remove an owner, an admin cannot change,
 * disable, re-enable or delete an owner-level service account.
 */
async function requireServiceAccountWithinCeiling(
  ctx: ProcedureContext<'organization'>,
  id: string,
  action: string,
): Promise<ServiceAccountView> {
  const account = await requireServiceAccount(ctx.em, ctx.organizationId, id);
  assertWithinGrantCeiling(ctx.principal, await serviceAccountPermissions(ctx.em, ctx.organizationId, id), action);
  return account;
}

/** `serviceAccounts.*`: organization-owned machine users, behind `public-api.service-accounts`. */
export function createServiceAccountAdminProcedures(deps: { rowAccessRoles: RowAccessRoles }) {
  const list = defineProcedure({
    name: 'serviceAccounts.list',
    summary: "The active organization's service accounts",
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    readOnly: true,
    input: ServiceAccountsListInput,
    output: ServiceAccountListSchema,
    async handler(ctx) {
      assertNotActingWithApiKey(ctx.principal);
      return { items: await listServiceAccounts(ctx.em, ctx.organizationId) };
    },
  });

  const create = defineProcedure({
    name: 'serviceAccounts.create',
    summary: 'Creates a service account: a machine member of the active organization with its own roles',
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    inputPermissions: [{ permission: 'rbac.manage', when: 'roleKeys given', appliesTo: (input) => (input.roleKeys?.length ?? 0) > 0 }],
    input: ServiceAccountsCreateInput,
    output: ServiceAccountViewSchema,
    async handler(ctx, input) {
      assertNotActingWithApiKey(ctx.principal);
      const roles = await rolesGrantableBy(ctx, deps.rowAccessRoles, input.roleKeys ?? []);
      const id = newServiceAccountId();
      const now = new Date();
      // Written in dependency order: these tables have foreign keys but the entities no relations.
      await ctx.em.insert(User, {
        id,
        email: serviceAccountEmail(id),
        // Generated from the unique id: the address is this account's, as a vouched-for one is.
        emailVerified: true,
        kind: 'SERVICE',
        displayName: input.displayName.trim(),
        description: input.description ?? null,
        createdBy: ctx.principal.userId,
        createdAt: now,
        updatedAt: now,
      });
      const membershipId = newId();
      await ctx.em.insert(Membership, { id: membershipId, organizationId: ctx.organizationId, userId: id, joinedAt: now });
      if (roles.length > 0) {
        await ctx.em.insertMany(
          RoleGrant,
          roles.map((role) => ({ id: newId(), membershipId, roleId: role.id, grantedBy: ctx.principal.userId, grantedAt: now })),
        );
      }
      const roleKeys = roles.map((role) => role.key).sort();
      ctx.emit(
        createEvent(
          'organization.member-joined',
          { organizationId: ctx.organizationId, userId: id, roleKeys },
          { organizationId: ctx.organizationId, userId: id },
        ),
      );
      return requireServiceAccount(ctx.em, ctx.organizationId, id);
    },
  });

  const update = defineProcedure({
    name: 'serviceAccounts.update',
    summary: "Renames a service account or changes its description (roles: rbac.roles.assign|revoke)",
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    input: ServiceAccountsUpdateInput,
    output: ServiceAccountViewSchema,
    async handler(ctx, input) {
      assertNotActingWithApiKey(ctx.principal);
      const changes = (['displayName', 'description'] as const).filter((field) => input[field] !== undefined);
      if (changes.length === 0) {
        throw validationFailed([{ field: '(body)', code: 'required', message: 'give displayName and/or description' }]);
      }
      await requireServiceAccountWithinCeiling(ctx, input.id, 'change a service account holding');
      const found = await updateServiceAccount(ctx.em, ctx.organizationId, input.id, {
        displayName: input.displayName?.trim(),
        description: input.description,
      });
      if (!found) throw notFound('Service account');
      ctx.emit(createEvent('user.profile-updated', { userId: input.id, changes: [...changes] }, { organizationId: ctx.organizationId, userId: input.id }));
      return requireServiceAccount(ctx.em, ctx.organizationId, input.id);
    },
  });

  const setDisabled = (name: 'serviceAccounts.disable' | 'serviceAccounts.enable', disabled: boolean) =>
    defineProcedure({
      name,
      summary: disabled
        ? 'Disables a service account: all its keys stop working at once'
        : 'Enables a disabled service account: its unrevoked, unexpired keys work again',
      scope: 'organization',
      permission: MANAGE_SERVICE_ACCOUNTS,
      featureFlag: SERVICE_ACCOUNTS_FLAG,
      input: ServiceAccountByIdInput,
      output: ServiceAccountViewSchema,
      async handler(ctx, input) {
        assertNotActingWithApiKey(ctx.principal);
        await requireServiceAccountWithinCeiling(ctx, input.id, `${disabled ? 'disable' : 'enable'} a service account holding`);
        const outcome = await setServiceAccountDisabled(ctx.em, ctx.organizationId, input.id, disabled);
        if (outcome === 'unchanged') return requireServiceAccount(ctx.em, ctx.organizationId, input.id);
        const scope = { organizationId: ctx.organizationId, userId: input.id };
        ctx.emit(
          disabled
            ? createEvent('user.disabled', { userId: input.id, disabledBy: ctx.principal.userId }, scope)
            : createEvent('user.enabled', { userId: input.id, enabledBy: ctx.principal.userId }, scope),
        );
        return requireServiceAccount(ctx.em, ctx.organizationId, input.id);
      },
    });

  const remove = defineProcedure({
    name: 'serviceAccounts.delete',
    summary: 'Deletes a service account, its membership and role grants, and revokes its keys',
    scope: 'organization',
    permission: MANAGE_SERVICE_ACCOUNTS,
    featureFlag: SERVICE_ACCOUNTS_FLAG,
    input: ServiceAccountByIdInput,
    output: DeletedServiceAccountSchema,
    async handler(ctx, input) {
      assertNotActingWithApiKey(ctx.principal);
      await requireServiceAccountWithinCeiling(ctx, input.id, 'delete a service account holding');
      // Its membership goes in the same statement (role grants cascade), before its keys are revoked.
      if (!(await deleteServiceAccount(ctx.em, ctx.organizationId, input.id))) throw notFound('Service account');
      const revokedKeys = await revokeAllApiKeysOf(ctx.em, input.id);
      // Scoped to the organization: the account's membership is gone, so it is the only way to route them.
      const scope = { organizationId: ctx.organizationId, userId: input.id };
      ctx.emit(
        createEvent(
          'organization.member-removed',
          { organizationId: ctx.organizationId, userId: input.id, removedBy: ctx.principal.userId },
          scope,
        ),
      );
      ctx.emit(createEvent('user.deleted', { userId: input.id, deletedBy: ctx.principal.userId }, scope));
      return { id: input.id, deleted: true as const, revokedKeys };
    },
  });

  return [list, create, update, setDisabled('serviceAccounts.disable', true), setDisabled('serviceAccounts.enable', false), remove];
}
