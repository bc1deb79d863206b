import { defineEntity, p } from '@mikro-orm/core';

const timestamps = {
  createdAt: p.datetime().onCreate(() => new Date()),
  updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
};

export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    slug: p.text().unique(),
    createdBy: p.text(),
    ...timestamps,
  },
});

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    /** The identity provider's `sub` for humans; `svc_…` for service accounts. */
    id: p.text().primary(),
    email: p.text(),
    /** Whether the identity provider vouched for `email`; only such addresses are unique. */
    emailVerified: p.boolean().default(false),
    kind: p.enum(['HUMAN', 'SERVICE'] as const),
    displayName: p.text(),
    description: p.text().nullable(),
    createdBy: p.text().nullable(),
    disabledAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    deletionScheduledFor: p.datetime().nullable(),
    ...timestamps,
  },
});

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    userId: p.text(),
    joinedAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Role = defineEntity({
  name: 'Role',
  tableName: 'roles',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    key: p.text(),
    name: p.text(),
    description: p.text().default(''),
    permissions: p.array(),
    builtIn: p.boolean().default(false),
    ...timestamps,
  },
});

export const RoleGrant = defineEntity({
  name: 'RoleGrant',
  tableName: 'role_grants',
  properties: {
    id: p.uuid().primary(),
    membershipId: p.uuid(),
    roleId: p.uuid(),
    grantedBy: p.text(),
    grantedAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Invite = defineEntity({
  name: 'Invite',
  tableName: 'invites',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    email: p.text(),
    roleIds: p.array(),
    tokenHash: p.text().unique(),
    invitedBy: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    acceptedBy: p.text().nullable(),
  },
});
