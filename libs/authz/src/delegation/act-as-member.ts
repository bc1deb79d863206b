import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, validationFailed, type Principal } from '@mrp/platform';
import { assertWithinActingCeiling, type RowAccessRoles } from '../access/grant-ceiling';
import { resolveMemberPrincipal } from './resolve-member-principal';

/**
 * Whom something the caller sets up may act as (a webhook endpoint's principal). A principal being
 * chosen (`choosing`) must be the caller or an active service account of the organization, named
 * by the input `field`. Either way the caller must hold its authority (`assertWithinActingCeiling`),
 * unless it can no longer act at all (nothing left to borrow).
 */
export async function assertMayActAsMember(
  em: EntityManager,
  rowAccess: RowAccessRoles,
  caller: Principal,
  organizationId: string,
  memberId: string,
  { field, action, choosing }: { field: string; action: string; choosing: boolean },
): Promise<void> {
  const member = await resolveMemberPrincipal(em, memberId, organizationId, caller.credential);
  const invalid = () => validationFailed([{ field, code: 'invalid_option', message: 'must be you or an active service account of this organization' }]);
  if ('cannotAct' in member) {
    if (!choosing) return;
    if (memberId === caller.userId) throw forbidden('You cannot act in this organization');
    throw invalid();
  }
  if (choosing && memberId !== caller.userId && member.principal.kind !== 'SERVICE') throw invalid();
  await assertWithinActingCeiling(em, rowAccess, caller, organizationId, member.principal, action);
}
