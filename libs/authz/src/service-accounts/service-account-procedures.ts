import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  defineProcedure,
  newId,
  notFound,
  validationFailed,
  type AnyProcedure,
  type ErrorDetail,
  type Principal,
} from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { Membership, Role, RoleGrant, User } from '../identity/entities';
import { revokeAllApiKeysOf } from '../api-keys/api-key-store';
import { openServiceAccountSurface, type ServiceAccountProcedureDeps } from './service-account-gate';
import { newServiceAccountId, serviceAccountEmail, SERVICE_ACCOUNT_ID_PATTERN } from './service-account-identity';
import {
  findServiceAccount,
  listServiceAccounts,
  setServiceAccountDisabled,
  updateServiceAccount,
} from './service-account-store';
import { ServiceAccountListSchema, ServiceAccountViewSchema, type ServiceAccountView } from './service-account-view';

const serviceAccountId = Type.String({ pattern: SERVICE_ACCOUNT_ID_PATTERN, description: 'svc_… id' });
const displayName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);
const byId = Type.Object({ id: serviceAccountId }, { additionalProperties: false });

/**
 * The roles named by `roleKeys` in the organization. Unknown keys and roles carrying a
 * permission the caller lacks are refused together: nobody hands out authority they do not hold.
 */
async function rolesGrantableBy(
  em: EntityManager,
  principal: Principal,
  organizationId: string,
  roleKeys: readonly string[],
): Promise<Array<{ id: string; key: string }>> {
  if (roleKeys.length === 0) return [];
  const roles = await em.find(Role, { organizationId, key: { $in: [...roleKeys] } });
  const byKey = new Map(roles.map((role) => [role.key, role]));
  const details: ErrorDetail[] = [];
  const granted: Array<{ id: string; key: string }> = [];
  for (const key of roleKeys) {
    const role = byKey.get(key);
    if (!role) {
      details.push({ field: 'roleKeys', code: 'invalid_option', message: `"${key}" is not a role of this organization` });
      continue;
    }
    granted.push({ id: role.id, key });
    const beyond = role.permissions.filter((permission) => !principal.permissions.has(permission)).sort();
    if (beyond.length > 0) {
      details.push({
        field: 'roleKeys',
        code: 'invalid_option',
        message: `role "${key}" carries permissions you do not hold: ${beyond.join(', ')}`,
      });
    }
  }
  if (details.length > 0) throw validationFailed(details);
  return granted;
}

async function requireServiceAccount(em: EntityManager, organizationId: string, id: string): Promise<ServiceAccountView> {
  const account = await findServiceAccount(em, organizationId, id);
  if (!account) throw notFound('Service account');
  return account;
}

/** `serviceAccounts.*`: organization-owned machine users, behind `public-api.service-accounts`. */
export function createServiceAccountAdminProcedures(deps: ServiceAccountProcedureDeps): AnyProcedure[] {
  const list = defineProcedure({
    name: 'serviceAccounts.list',
    summary: "The active organization's service accounts",
    scope: 'organization',
    permission: null, // api-keys.manage-service-accounts, checked after the flag (see openServiceAccountSurface)
    readOnly: true,
    input: Type.Object({}, { additionalProperties: false }),
    output: ServiceAccountListSchema,
    async handler(ctx) {
      await openServiceAccountSurface(ctx, 'serviceAccounts.list', deps);
      return { items: await listServiceAccounts(ctx.em, ctx.organizationId) };
    },
  });

  const create = defineProcedure({
    name: 'serviceAccounts.create',
    summary: 'Creates a service account: a machine member of the active organization with its own roles',
    scope: 'organization',
    permission: null,
    input: Type.Object(
      {
        displayName,
        description: Type.Optional(description),
        roleKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
      },
      { additionalProperties: false },
    ),
    output: ServiceAccountViewSchema,
    async handler(ctx, input) {
      await openServiceAccountSurface(ctx, 'serviceAccounts.create', deps);
      const roles = await rolesGrantableBy(ctx.em, ctx.principal, ctx.organizationId, input.roleKeys ?? []);
      const id = newServiceAccountId();
      const now = new Date();
      // Written in dependency order: these tables have foreign keys but the entities no relations.
      await ctx.em.insert(User, {
        id,
        email: serviceAccountEmail(id),
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
    permission: null,
    input: Type.Object(
      { id: serviceAccountId, displayName: Type.Optional(displayName), description: Type.Optional(description) },
      { additionalProperties: false },
    ),
    output: ServiceAccountViewSchema,
    async handler(ctx, input) {
      await openServiceAccountSurface(ctx, 'serviceAccounts.update', deps);
      const changes = (['displayName', 'description'] as const).filter((field) => input[field] !== undefined);
      if (changes.length === 0) {
        throw validationFailed([{ field: '(body)', code: 'required', message: 'give displayName and/or description' }]);
      }
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
      permission: null,
      input: byId,
      output: ServiceAccountViewSchema,
      async handler(ctx, input) {
        await openServiceAccountSurface(ctx, name, deps);
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
    summary: 'Deletes a service account and revokes its keys',
    scope: 'organization',
    permission: null,
    input: byId,
    output: Type.Object({ id: Type.String(), deleted: Type.Literal(true), revokedKeys: Type.Integer() }, { additionalProperties: false }),
    async handler(ctx, input) {
      await openServiceAccountSurface(ctx, 'serviceAccounts.delete', deps);
      const found = await updateServiceAccount(ctx.em, ctx.organizationId, input.id, { deleted: true });
      if (!found) throw notFound('Service account');
      const revokedKeys = await revokeAllApiKeysOf(ctx.em, input.id);
      return { id: input.id, deleted: true as const, revokedKeys };
    },
  });

  return [list, create, update, setDisabled('serviceAccounts.disable', true), setDisabled('serviceAccounts.enable', false), remove];
}
