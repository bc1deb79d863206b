import { defineProcedure, validationFailed } from '@mrp/platform';
import { organizationMemberIds } from '@mrp/authz';
import type { Notifier } from '../notifier/notifier';
import { NotificationsSendInput, NotifiedSchema } from './send-inputs';

/** Sending messages to members is what automations do; whoever may build one may send one. */
export const SEND_NOTIFICATIONS = 'automations.manage';

/**
 * `notifications.send`: a message to members of the active organization, by id and/or by role
 * (the `notify` action of automations runs it as the automation's owner). Ids that are not
 * members are left out, and the notifier leaves out service accounts and deleted people; the
 * answer says how many were notified.
 */
export function createSendNotificationProcedure(notifier: Notifier) {
  const send = defineProcedure({
    name: 'notifications.send',
    summary: 'Notifies members of the organization, chosen by id or by role',
    scope: 'organization',
    permission: SEND_NOTIFICATIONS,
    input: NotificationsSendInput,
    output: NotifiedSchema,
    async handler(ctx, input) {
      if (input.userIds === undefined && input.role === undefined) {
        throw validationFailed([{ field: 'userIds', code: 'required', message: 'name userIds, a role or both' }]);
      }
      const members = await organizationMemberIds(ctx.em, ctx.organizationId, { userIds: input.userIds, roleKey: input.role });
      if (members === null) throw validationFailed([{ field: 'role', code: 'invalid_option', message: `the organization has no role "${input.role}"` }]);
      const notified = await notifier.notify(ctx, members, {
        kind: 'organization.message',
        title: input.title,
        ...(input.body !== undefined ? { body: input.body } : {}),
        data: { sentBy: ctx.principal.userId },
        organizationId: ctx.organizationId,
      });
      return { notified: notified.length };
    },
  });
  return send;
}
