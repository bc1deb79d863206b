import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, validationFailed, type Principal } from '@mrp/platform';
import { permissionsBeyond, resolveMemberPrincipal } from '@mrp/authz';

/**
 * An automation acts as its owner, so whoever makes it act (creates, changes, runs or re-keys it)
 * must hold every permission the owner holds: nobody gets a robot with more authority than their
 * own. That includes a limited API key of the owner itself, whose allowlist the owner exceeds.
 * The owner is the caller or a service account of the organization.
 */
export async function assertMayActAsOwner(em: EntityManager, caller: Principal, organizationId: string, ownerId: string, action: string): Promise<void> {
  const owner = await resolveMemberPrincipal(em, ownerId, organizationId, { type: 'automation', automationId: '', runId: '' });
  if ('cannotAct' in owner) {
    if (ownerId === caller.userId) throw forbidden('You cannot own an automation in this organization');
    throw validationFailed([{ field: 'ownerId', code: 'invalid_option', message: 'must be you or an active service account of this organization' }]);
  }
  if (ownerId !== caller.userId && owner.principal.kind !== 'SERVICE') {
    throw validationFailed([{ field: 'ownerId', code: 'invalid_option', message: 'must be you or an active service account of this organization' }]);
  }
  const beyond = permissionsBeyond(caller, owner.principal.permissions);
  if (beyond.length > 0) {
    throw forbidden(`You cannot ${action} an automation that acts with permissions you do not hold: ${beyond.join(', ')}`);
  }
}

/** The same check for an existing automation, unless its owner can no longer act at all (nothing left to borrow). */
export async function assertMayActAsCurrentOwner(em: EntityManager, caller: Principal, organizationId: string, ownerId: string, action: string): Promise<void> {
  const owner = await resolveMemberPrincipal(em, ownerId, organizationId, { type: 'automation', automationId: '', runId: '' });
  if ('cannotAct' in owner) return;
  const beyond = permissionsBeyond(caller, owner.principal.permissions);
  if (beyond.length > 0) {
    throw forbidden(`You cannot ${action} an automation that acts with permissions you do not hold: ${beyond.join(', ')}`);
  }
}
