import { randomBytes } from 'node:crypto';
import {
  FeatureFlagStore,
  invokeProcedure,
  newId,
  noopEventDispatcher,
  type AnyProcedure,
  type EventDispatcher,
  type Orm,
  type Principal,
} from '@mrp/platform';
import { silentLogger, testPrincipal } from '@mrp/platform/testing';
import { loadOrganizationAccess } from '../src/access/organization-access';
import { Membership, Organization, Role, RoleGrant, User } from '../src/identity/entities';
import { BUILT_IN_ROLES } from '../src/rbac/permission-catalog';

/**
 * Test data for the API-key and service-account specs, written straight into the identity tables
 * (the organization and RBAC procedures belong to another feature and are not under test here).
 */
export interface SeededOrganization {
  id: string;
  /** Built-in role ids by key (owner, admin, member, read-only). */
  roleIds: Record<string, string>;
}

const unique = () => randomBytes(4).toString('hex');

export async function seedOrganization(orm: Orm): Promise<SeededOrganization> {
  const em = orm.em.fork();
  const id = newId();
  const suffix = unique();
  await em.insert(Organization, { id, name: `Org ${suffix}`, slug: `org-${suffix}`, createdBy: 'seed', createdAt: new Date(), updatedAt: new Date() });
  const roleIds: Record<string, string> = {};
  for (const role of BUILT_IN_ROLES) {
    roleIds[role.key] = newId();
    await em.insert(Role, {
      id: roleIds[role.key],
      organizationId: id,
      key: role.key,
      name: role.name,
      description: role.description,
      permissions: [...role.permissions],
      builtIn: true,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
  }
  return { id, roleIds };
}

export async function seedRole(orm: Orm, organizationId: string, key: string, permissions: string[]): Promise<string> {
  const id = newId();
  await orm.em.fork().insert(Role, {
    id,
    organizationId,
    key,
    name: key,
    description: '',
    permissions,
    builtIn: false,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  return id;
}

export async function seedHuman(orm: Orm): Promise<string> {
  const id = newId();
  await orm.em.fork().insert(User, {
    id,
    email: `${id}@example.com`,
    kind: 'HUMAN',
    displayName: `Human ${id.slice(-4)}`,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  return id;
}

export async function seedMembership(orm: Orm, organizationId: string, userId: string, roleIds: string[]): Promise<string> {
  const em = orm.em.fork();
  const membershipId = newId();
  await em.insert(Membership, { id: membershipId, organizationId, userId, joinedAt: new Date() });
  for (const roleId of roleIds) {
    await em.insert(RoleGrant, { id: newId(), membershipId, roleId, grantedBy: 'seed', grantedAt: new Date() });
  }
  return membershipId;
}

/** A human member holding the given built-in roles; returns the user id. */
export async function seedMember(orm: Orm, organization: SeededOrganization, roleKeys: string[]): Promise<string> {
  const userId = await seedHuman(orm);
  await seedMembership(
    orm,
    organization.id,
    userId,
    roleKeys.map((key) => organization.roleIds[key]),
  );
  return userId;
}

/** A signed-in caller's principal, with permissions read live from the database as a session would. */
export async function sessionPrincipal(orm: Orm, userId: string, organizationId: string): Promise<Principal> {
  const access = await loadOrganizationAccess(orm.em.fork(), userId, organizationId);
  return testPrincipal({
    userId,
    email: `${userId}@example.com`,
    organizationId,
    roleIds: access?.roleIds ?? [],
    permissions: new Set(access?.permissions ?? []),
  });
}

export function invokeAs<T = unknown>(
  orm: Orm,
  procedure: AnyProcedure,
  principal: Principal,
  input: unknown,
  dispatcher: EventDispatcher = noopEventDispatcher,
): Promise<T> {
  return invokeProcedure<T>(
    procedure,
    input,
    { em: orm.em.fork(), principal, correlationId: 'test' },
    { dispatcher, logger: silentLogger, flags: new FeatureFlagStore(orm, {}, 0) },
  );
}

import { RecordingEventDispatcher as RecordingDispatcher } from '@mrp/platform/testing';

export { RecordingDispatcher };
