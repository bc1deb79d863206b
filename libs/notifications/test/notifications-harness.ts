import { randomUUID } from 'node:crypto';
import {
  FeatureFlagStore,
  ProcedureRegistry,
  invokeProcedure,
  noopEventDispatcher,
  platformModule,
  systemPrincipal,
  type EventDispatcher,
  type PendingEvent,
} from '@mrp/platform';
import { createTestOrm, silentLogger, type TestOrm } from '@mrp/platform/testing';
import { authzModule, createAuthzProcedures, resolveSessionPrincipal, type SessionClaims } from '@mrp/authz';
import {
  createNotificationProcedures,
  createNotifier,
  createSendDueEmailsProcedure,
  notificationsModule,
  SEND_NOTIFICATION_EMAILS,
  type Notifier,
  type SendEmail,
} from '../src';

export const OPERATOR_EMAIL = 'ops@platform.test';

export interface NotificationsHarness {
  db: TestOrm;
  notifier: Notifier;
  person(label: string): SessionClaims;
  /** Provisions the human (first sight) and returns their id. */
  signUp(who: SessionClaims): Promise<string>;
  call<T = Record<string, unknown>>(name: string, input: unknown, who: SessionClaims, organizationId?: string | null): Promise<T>;
  /** Runs `work` in a transaction with a scope that records what it emits. */
  inTransaction<T>(work: (scope: Parameters<Notifier['notify']>[0]) => Promise<T>): Promise<{ result: T; emitted: PendingEvent[] }>;
  /** Runs the send-notification-emails task's procedure as its system principal. */
  sendDueEmails(): Promise<number>;
  sql<T extends object = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface NotificationsHarnessOptions {
  /** SMTP is configured, and this sends the emails. */
  sendEmail?: SendEmail;
}

export async function createNotificationsHarness(
  dispatcher: EventDispatcher = noopEventDispatcher,
  { sendEmail }: NotificationsHarnessOptions = {},
): Promise<NotificationsHarness> {
  const db = await createTestOrm([platformModule, authzModule, notificationsModule]);
  const notifier = createNotifier({ platformAdminEmails: new Set([OPERATOR_EMAIL]), emailEnabled: sendEmail !== undefined });
  const flags = new FeatureFlagStore(db.orm, {}, 0);
  const registry = new ProcedureRegistry([
    // No records exist here, so no role grants row access.
    ...createAuthzProcedures({ flags, notifier, rowAccessRoles: { grantingRowAccess: async () => [] } }),
    ...createNotificationProcedures(),
    createSendDueEmailsProcedure(sendEmail),
  ]);
  const platformAdminEmails = new Set([OPERATOR_EMAIL]);
  const principal = (who: SessionClaims, organizationId: string | null) =>
    resolveSessionPrincipal(db.orm.em.fork(), who, { organizationId, platformAdminEmails });

  return {
    db,
    notifier,
    person: (label) => ({ sub: randomUUID(), email: `${label}-${randomUUID().slice(0, 8)}@example.test`, name: label }),
    signUp: async (who) => (await principal(who, null)).userId,
    async call(name, input, who, organizationId = null) {
      return invokeProcedure(
        registry.require(name),
        input,
        { em: db.orm.em.fork(), principal: await principal(who, organizationId), correlationId: `test-${name}` },
        { dispatcher, logger: silentLogger, flags },
      );
    },
    async inTransaction(work) {
      const emitted: PendingEvent[] = [];
      const result = await db.orm.em.fork().transactional((em) => work({ em, emit: (event) => emitted.push(event) }));
      return { result, emitted };
    },
    async sendDueEmails() {
      const output = await invokeProcedure<{ processed: number }>(
        registry.require('notifications.emails.sendDue'),
        {},
        {
          em: db.orm.em.fork(),
          principal: systemPrincipal('send-notification-emails', { permissions: [SEND_NOTIFICATION_EMAILS] }),
          correlationId: 'test-send-notification-emails',
        },
        { dispatcher, logger: silentLogger, flags },
      );
      return output.processed;
    },
    sql: <T extends object>(query: string, params: unknown[] = []) => db.orm.em.fork().execute<T[]>(query, params),
    close: () => db.close(),
  };
}

/** A service account as the service-accounts feature creates it: a SERVICE user with a membership. */
export async function insertServiceAccount(h: NotificationsHarness, organizationId?: string): Promise<string> {
  const id = `svc_${randomUUID().replace(/-/g, '')}`;
  await h.sql("INSERT INTO users (id, email, kind, display_name) VALUES (?, ?, 'SERVICE', 'Robot')", [id, `${id}@service.invalid`]);
  if (organizationId) {
    await h.sql('INSERT INTO memberships (id, organization_id, user_id) VALUES (gen_random_uuid(), ?, ?)', [organizationId, id]);
  }
  return id;
}
