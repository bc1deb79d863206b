import { randomUUID } from 'node:crypto';
import {
  FeatureFlagStore,
  createJobQueue,
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
  createSendEmailProcedure,
  EMAIL_QUEUE,
  notificationsModule,
  SEND_NOTIFICATION_EMAILS,
  type Notifier,
  type EmailJob,
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
  /**
   * Runs the email jobs that are due (all waiting ones with `ignoreDelay`), each through its
   * procedure as `system:send-notification-emails`, as a worker does; answers how many ran.
   */
  sendDueEmails(options?: { ignoreDelay?: boolean }): Promise<number>;
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
  const jobs = createJobQueue({ orm: db.orm, listenUrl: db.database.directUrl, logger: silentLogger });
  const notifier = createNotifier({ platformAdminEmails: new Set([OPERATOR_EMAIL]), emailJobs: sendEmail ? jobs : undefined });
  const flags = new FeatureFlagStore(db.orm, {}, 0);
  const registry = new ProcedureRegistry([
    // No records exist here, so no role grants row access.
    ...createAuthzProcedures({ flags, notifier, rowAccessRoles: { grantingRowAccess: async () => [] } }),
    ...createNotificationProcedures(),
    createSendEmailProcedure(sendEmail, jobs),
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
    sendDueEmails(options) {
      return jobs.drain<EmailJob>(
        EMAIL_QUEUE,
        async (job) => {
          await invokeProcedure(
            registry.require('notifications.emails.send'),
            { notificationId: job.data.notificationId },
            {
              em: db.orm.em.fork(),
              principal: systemPrincipal('send-notification-emails', { permissions: [SEND_NOTIFICATION_EMAILS] }),
              correlationId: 'test-send-notification-emails',
            },
            { dispatcher, logger: silentLogger, flags },
          );
        },
        options,
      );
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
