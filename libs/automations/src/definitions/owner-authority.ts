import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, validationFailed, type Principal } from '@mrp/platform';
import { assertWithinActingCeiling, resolveMemberPrincipal, type RowAccessRoles } from '@mrp/authz';

/**
 * An automation acts as its owner, so whoever makes it act (creates, changes, runs or re-keys it)
 * must hold every permission the owner holds, and every role of the owner's that grants record
 * access (records are visible by role, not by permission): nobody gets a robot with more
 * authority than their own, owners of the organization included. That includes a limited API
 * key of the owner itself, whose allowlist the owner exceeds.
 * The owner is the caller or a service account of the organization.
 */
export async function assertMayActAsOwner(
  em: EntityManager,
  rowAccess: RowAccessRoles,
  caller: Principal,
  organizationId: string,
  ownerId: string,
  action: string,
): Promise<void> {
  const owner = await resolveMemberPrincipal(em, ownerId, organizationId, { type: 'automation', automationId: '', runId: '' });
  if ('cannotAct' in owner) {
    if (ownerId === caller.userId) throw forbidden('You cannot own an automation in this organization');
    throw validationFailed([{ field: 'ownerId', code: 'invalid_option', message: 'must be you or an active service account of this organization' }]);
  }
  if (ownerId !== caller.userId && owner.principal.kind !== 'SERVICE') {
    throw validationFailed([{ field: 'ownerId', code: 'invalid_option', message: 'must be you or an active service account of this organization' }]);
  }
  await assertWithinOwnerAuthority(em, rowAccess, caller, organizationId, owner.principal, action);
}

/** The same check for an existing automation, unless its owner can no longer act at all (nothing left to borrow). */
export async function assertMayActAsCurrentOwner(
  em: EntityManager,
  rowAccess: RowAccessRoles,
  caller: Principal,
  organizationId: string,
  ownerId: string,
  action: string,
): Promise<void> {
  const owner = await resolveMemberPrincipal(em, ownerId, organizationId, { type: 'automation', automationId: '', runId: '' });
  if ('cannotAct' in owner) return;
  await assertWithinOwnerAuthority(em, rowAccess, caller, organizationId, owner.principal, action);
}

async function assertWithinOwnerAuthority(
  em: EntityManager,
  rowAccess: RowAccessRoles,
  caller: Principal,
  organizationId: string,
  owner: Principal,
  action: string,
): Promise<void> {
  await assertWithinActingCeiling(em, rowAccess, caller, organizationId, owner, `${action} an automation that acts with`);
}
