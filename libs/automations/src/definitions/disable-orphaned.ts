import { Type } from '@sinclair/typebox';
import { defineProcedure, sqlTextArray } from '@mrp/platform';
import { createEvent } from '@mrp/events';
import { deletedUserIds } from '@mrp/authz';

/** What the `process-account-deletions` task's principal holds for this step. */
export const DISABLE_ORPHANED_AUTOMATIONS = 'system.process-account-deletions';

/**
 * `automations.disableOrphaned`: disables the enabled automations whose owner's account is deleted
 * (or gone), each with `automation.updated`. The account-deletion task runs it after deleting
 * accounts; it looks at every enabled automation's owner, so one that a crash between the two
 * steps left enabled is found by the next run. (A run of such an automation fails anyway: its owner
 * cannot act.)
 */
export const disableOrphanedAutomations = defineProcedure({
  name: 'automations.disableOrphaned',
  summary: 'Disables the automations of deleted accounts',
  scope: 'system',
  permission: DISABLE_ORPHANED_AUTOMATIONS,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
  async handler(ctx) {
    const owners = await ctx.em.execute<Array<{ owner_id: string }>>('SELECT DISTINCT owner_id FROM automations WHERE enabled');
    const gone = await deletedUserIds(ctx.em, owners.map((row) => row.owner_id));
    if (gone.length === 0) return { processed: 0 };
    const disabled = await ctx.em.execute<Array<{ id: string; organization_id: string }>>(
      `UPDATE automations SET enabled = false, updated_at = now() WHERE enabled AND owner_id = ANY(?::text[])
       RETURNING id, organization_id`,
      [sqlTextArray(gone)],
    );
    for (const automation of disabled.sort((a, b) => a.id.localeCompare(b.id))) {
      ctx.emit(
        createEvent(
          'automation.updated',
          { automationId: automation.id, organizationId: automation.organization_id, changes: ['enabled'] },
          { organizationId: automation.organization_id },
        ),
      );
    }
    return { processed: disabled.length };
  },
});
