import { pruneIdempotentRequests, type AnyProcedure } from '@mrp/platform';
import { apiKeyProcedures, createAuthzProcedures, createServiceAccountProcedures, meIdentityProcedure } from '@mrp/authz';
import { createNotificationProcedures, createSendEmailProcedure, createSendNotificationProcedure } from '@mrp/notifications';
import { createDataModelsProcedures, recordRowAccessRoles } from '@mrp/data-models';
import type { RuntimeServices } from './runtime';

/** Every procedure of every lib; the /rpc door serves all of them, /api/v1 a curated subset. */
export function allProcedures(services: RuntimeServices): AnyProcedure[] {
  const { notifier } = services;
  return [
    pruneIdempotentRequests,
    ...createAuthzProcedures({
      flags: services.flags,
      notifier,
      rowAccessRoles: recordRowAccessRoles,
      accountDeletionGraceDays: services.config.accountDeletionGraceDays,
    }),
    meIdentityProcedure,
    ...apiKeyProcedures,
    ...createServiceAccountProcedures({ rowAccessRoles: recordRowAccessRoles }),
    ...createNotificationProcedures(),
    createSendNotificationProcedure(notifier),
    createSendEmailProcedure(services.emailSender?.send, services.jobs),
    ...createDataModelsProcedures({ cursorSecret: services.config.cursorSecret, exportStatementTimeoutMs: services.config.taskStatementTimeoutMs, notifier }),
    ...services.webhooks.procedures,
    ...services.automations.procedures,
    ...services.views.procedures,
  ];
}
