import { randomUUID } from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import { EVENT_TYPES, type EventCatalog, type EventType } from '@mrp/events';
import { resolveSessionPrincipal, type SessionClaims } from '@mrp/authz';
import { invokeProcedure, loadConfig, type EventCause, type EventEnvelope } from '@mrp/platform';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { createRuntime, type Runtime } from './runtime';
import { createAutomationRunner } from './automation-runner-as-system';
import { EMAIL_QUEUE, type EmailJob } from '@mrp/notifications';
import { runEmailJob } from './email-jobs';

/**
 * One test per event type of the catalog: each drives the real procedure (or scheduled task) that
 * causes the event, on a real runtime, and checks what the bus received after commit: its type,
 * payload, organization, user and aliases. A catalog type with no scenario here fails to compile
 * (SCENARIOS is keyed by the catalog) and fails the first test, unless it is named below as
 * coming with a later issue (or, for now, as tested with the webhook worker).
 */

/** Types whose cause does not exist yet: they come with their issues. */
const COMES_LATER = [] as const satisfies readonly EventType[];

/** Emitted by the webhook worker after five failed attempts: its end-to-end test is apps/api/test/webhooks/deliveries.spec.ts. */
const TESTED_WITH_THE_WEBHOOK_WORKER = ['webhook.endpoint-disabled-after-failures'] as const satisfies readonly EventType[];

type Covered = Exclude<EventType, (typeof COMES_LATER)[number] | (typeof TESTED_WITH_THE_WEBHOOK_WORKER)[number]>;

/** What an event must carry besides its generated id, time and correlation id. */
interface Expected<T extends EventType> {
  payload: EventCatalog[T];
  organizationId?: string;
  userId?: string;
  subscriptionAliases?: string[];
  causedBy?: EventCause;
}

interface Scenario<T extends EventType> {
  /** The cause, in words (the test's name). */
  cause: string;
  /** Brings the cause about and says what the event must be (or the events, in order, when it causes several). */
  run(): Promise<Expected<T> | Array<Expected<T>>>;
}

const PLATFORM_ADMIN = 'ops@emission.test';
const CORRELATION_ID = 'emission-test-request';

let runtime: Runtime;
let owner: SessionClaims;
let member: SessionClaims;
let admin: SessionClaims;
let organizationId: string;
/** Every recipient is refused: notification emails fail. */
let refusingSmtp: SMTPServer;
let refusingSmtpPort: number;

const person = (label: string): SessionClaims => ({ sub: randomUUID(), email: `${label}-${randomUUID().slice(0, 8)}@emission.test`, name: label });

/** The principal of a session, from live rows, as the /rpc door resolves it (with the real dispatcher). */
const principalOf = (who: SessionClaims, organization: string | null = null) =>
  resolveSessionPrincipal(runtime.orm.em.fork(), who, {
    organizationId: organization,
    platformAdminEmails: runtime.config.platformAdminEmails,
    dispatcher: runtime.dispatcher,
    correlationId: CORRELATION_ID,
  });

/** Runs a procedure as `who` through invokeProcedure, as a door does. */
async function call<T = Record<string, unknown>>(name: string, input: unknown, who: SessionClaims, organization: string | null = null): Promise<T> {
  return invokeProcedure<T>(
    runtime.procedures.require(name),
    input,
    { em: runtime.orm.em.fork(), principal: await principalOf(who, organization), correlationId: CORRELATION_ID },
    runtime.invocationDeps,
  );
}

const sql = <T extends object = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  runtime.orm.em.fork().execute<T[]>(query, params);

const roleId = async (key: string, organization = organizationId) =>
  (await sql<{ id: string }>('SELECT id FROM roles WHERE organization_id = ? AND key = ?', [organization, key]))[0].id;

/** A person who has joined the organization through an invite, with the `member` role. */
async function invitedMember(label: string): Promise<SessionClaims> {
  const who = person(label);
  const { token } = await call<{ token: string }>('organizations.invite', { email: who.email }, owner, organizationId);
  await call('organizations.acceptInvite', { token }, who);
  return who;
}

const newServiceAccount = async (roleKeys: string[] = []) =>
  (await call<{ id: string }>('serviceAccounts.create', { displayName: 'Robot', roleKeys }, owner, organizationId)).id;

const newRecord = async (title: string) =>
  call<{ id: string }>('records.create', { model: 'tasks', data: { title } }, owner, organizationId);

/** An http automation of the owner's with these actions, run once by hand (after `beforeRun`) and then by a runner. */
async function runAutomationOnce(actions: unknown[], beforeRun?: () => Promise<unknown>): Promise<{ automationId: string; runId: string; causedBy: EventCause }> {
  const { id: automationId } = await call<{ id: string }>('automations.create', { name: 'Once', trigger: { type: 'http' }, actions }, owner, organizationId);
  await beforeRun?.();
  const { runId } = await call<{ runId: string }>('automations.run', { id: automationId }, owner, organizationId);
  await createAutomationRunner(runtime).drain();
  return { automationId, runId, causedBy: { automationRunId: runId, automationChain: [automationId] } };
}

/** A model with a SELECT field `stage` (todo, doing), for boards. */
async function modelWithStage(key: string): Promise<void> {
  await call('dataModels.create', { key, name: key }, owner, organizationId);
  await call(
    'dataModels.fields.create',
    { model: key, key: 'stage', name: 'Stage', type: 'SELECT', config: { options: [{ value: 'todo', label: 'To do' }, { value: 'doing', label: 'Doing' }] } },
    owner,
    organizationId,
  );
}

let cardBoard: Promise<string> | undefined;
/** The one board over the `cards` model (one board, so each record change derives one card event). */
const cardBoardId = () =>
  (cardBoard ??= modelWithStage('cards').then(
    async () => (await call<{ id: string }>('kanban.boards.create', { name: 'Cards', modelKey: 'cards', fieldKey: 'stage' }, owner, organizationId)).id,
  ));

const newCard = async (title: string) => {
  const boardId = await cardBoardId();
  const record = await call<{ id: string; title: string }>('records.create', { model: 'cards', data: { title, stage: 'todo' } }, owner, organizationId);
  return { boardId, record };
};

async function runTask(name: string): Promise<number> {
  const task = runtime.tasks.find((candidate) => candidate.name === name);
  if (!task) throw new Error(`No scheduled task ${name}`);
  return task.run(runtime);
}

const SCENARIOS: { [T in Covered]: [Scenario<T>, ...Array<Scenario<T>>] } = {
  'user.profile-updated': [
    {
      cause: 'users.updateProfile',
      async run() {
        const who = person('renamed');
        await call('users.updateProfile', { displayName: 'New Name' }, who);
        return { payload: { userId: who.sub, changes: ['displayName'] }, userId: who.sub };
      },
    },
    {
      cause: 'serviceAccounts.update',
      async run() {
        const id = await newServiceAccount();
        await call('serviceAccounts.update', { id, displayName: 'Renamed robot' }, owner, organizationId);
        return { payload: { userId: id, changes: ['displayName'] }, organizationId, userId: id };
      },
    },
  ],
  'user.email-changed': [
    {
      cause: 'a session whose identity provider now vouches for another address',
      async run() {
        const who = person('moving');
        await principalOf(who);
        const moved = { ...who, email: `moved-${who.email}` };
        await principalOf(moved);
        return { payload: { userId: who.sub, previousEmail: who.email, email: moved.email }, userId: who.sub };
      },
    },
  ],
  'user.deletion-requested': [
    {
      cause: 'users.requestDeletion',
      async run() {
        const who = person('leaving');
        const { deletionScheduledFor } = await call<{ deletionScheduledFor: string }>('users.requestDeletion', {}, who);
        return { payload: { userId: who.sub, scheduledFor: deletionScheduledFor }, userId: who.sub };
      },
    },
  ],
  'user.deletion-canceled': [
    {
      cause: 'users.cancelDeletion',
      async run() {
        const who = person('staying');
        await call('users.requestDeletion', {}, who);
        await call('users.cancelDeletion', {}, who);
        return { payload: { userId: who.sub }, userId: who.sub };
      },
    },
  ],
  'user.disabled': [
    {
      cause: 'users.disable (platform admin)',
      async run() {
        const who = person('locked');
        await principalOf(who);
        await call('users.disable', { userId: who.sub }, admin);
        return { payload: { userId: who.sub, disabledBy: admin.sub }, userId: who.sub };
      },
    },
    {
      cause: 'serviceAccounts.disable',
      async run() {
        const id = await newServiceAccount();
        await call('serviceAccounts.disable', { id }, owner, organizationId);
        return { payload: { userId: id, disabledBy: owner.sub }, organizationId, userId: id };
      },
    },
  ],
  'user.enabled': [
    {
      cause: 'users.enable (platform admin)',
      async run() {
        const who = person('unlocked');
        await principalOf(who);
        await call('users.disable', { userId: who.sub }, admin);
        await call('users.enable', { userId: who.sub }, admin);
        return { payload: { userId: who.sub, enabledBy: admin.sub }, userId: who.sub };
      },
    },
    {
      cause: 'serviceAccounts.enable',
      async run() {
        const id = await newServiceAccount();
        await call('serviceAccounts.disable', { id }, owner, organizationId);
        await call('serviceAccounts.enable', { id }, owner, organizationId);
        return { payload: { userId: id, enabledBy: owner.sub }, organizationId, userId: id };
      },
    },
  ],
  'user.deleted': [
    {
      cause: 'the process-account-deletions task, once the grace period is over',
      async run() {
        const who = person('gone');
        await call('users.requestDeletion', {}, who);
        await sql("UPDATE users SET deletion_scheduled_for = now() - interval '1 minute' WHERE id = ?", [who.sub]);
        expect(await runTask('process-account-deletions')).toBe(1);
        return { payload: { userId: who.sub, deletedBy: who.sub }, userId: who.sub };
      },
    },
    {
      cause: 'serviceAccounts.delete',
      async run() {
        const id = await newServiceAccount();
        await call('serviceAccounts.delete', { id }, owner, organizationId);
        return { payload: { userId: id, deletedBy: owner.sub }, organizationId, userId: id };
      },
    },
  ],
  'organization.created': [
    {
      cause: 'organizations.create',
      async run() {
        const founder = person('founder');
        const created = await call<{ id: string }>('organizations.create', { name: 'Founded Co', slug: `founded-${randomUUID().slice(0, 8)}` }, founder);
        const [{ slug }] = await sql<{ slug: string }>('SELECT slug FROM organizations WHERE id = ?', [created.id]);
        return { payload: { organizationId: created.id, name: 'Founded Co', slug, createdBy: founder.sub }, organizationId: created.id };
      },
    },
  ],
  'organization.updated': [
    {
      cause: 'organizations.update',
      async run() {
        await call('organizations.update', { name: `Renamed ${randomUUID().slice(0, 4)}` }, owner, organizationId);
        return { payload: { organizationId, changes: ['name'] }, organizationId };
      },
    },
  ],
  'organization.member-joined': [
    {
      cause: 'organizations.create (the founder joins as owner)',
      async run() {
        const founder = person('founder');
        const created = await call<{ id: string }>('organizations.create', { name: 'Joined Co', slug: `joined-${randomUUID().slice(0, 8)}` }, founder);
        return { payload: { organizationId: created.id, userId: founder.sub, roleKeys: ['owner'] }, organizationId: created.id, userId: founder.sub };
      },
    },
    {
      cause: 'organizations.acceptInvite',
      async run() {
        const who = await invitedMember('joiner');
        return { payload: { organizationId, userId: who.sub, roleKeys: ['member'] }, organizationId, userId: who.sub };
      },
    },
    {
      cause: 'serviceAccounts.create',
      async run() {
        const id = await newServiceAccount(['read-only']);
        return { payload: { organizationId, userId: id, roleKeys: ['read-only'] }, organizationId, userId: id };
      },
    },
  ],
  'organization.member-removed': [
    {
      cause: 'organizations.removeMember',
      async run() {
        const who = await invitedMember('removed');
        await call('organizations.removeMember', { userId: who.sub }, owner, organizationId);
        return { payload: { organizationId, userId: who.sub, removedBy: owner.sub }, organizationId, userId: who.sub };
      },
    },
    {
      cause: 'serviceAccounts.delete',
      async run() {
        const id = await newServiceAccount();
        await call('serviceAccounts.delete', { id }, owner, organizationId);
        return { payload: { organizationId, userId: id, removedBy: owner.sub }, organizationId, userId: id };
      },
    },
  ],
  'organization.invite-sent': [
    {
      cause: 'organizations.invite',
      async run() {
        const email = person('invited').email;
        const { invite } = await call<{ invite: { id: string } }>('organizations.invite', { email, roleKeys: ['read-only'] }, owner, organizationId);
        return { payload: { organizationId, inviteId: invite.id, email, roleKeys: ['read-only'], invitedBy: owner.sub }, organizationId };
      },
    },
  ],
  'organization.invite-accepted': [
    {
      cause: 'organizations.acceptInvite',
      async run() {
        const who = person('accepting');
        const { invite, token } = await call<{ invite: { id: string }; token: string }>('organizations.invite', { email: who.email }, owner, organizationId);
        await call('organizations.acceptInvite', { token }, who);
        return { payload: { organizationId, inviteId: invite.id, userId: who.sub }, organizationId, userId: who.sub };
      },
    },
  ],
  'rbac.role-assigned': [
    {
      cause: 'rbac.roles.assign',
      async run() {
        await call('rbac.roles.assign', { userId: member.sub, roleKey: 'admin' }, owner, organizationId);
        return {
          payload: { organizationId, roleId: await roleId('admin'), roleKey: 'admin', userId: member.sub, assignedBy: owner.sub },
          organizationId,
          userId: member.sub,
        };
      },
    },
  ],
  'rbac.role-revoked': [
    {
      cause: 'rbac.roles.revoke',
      async run() {
        await call('rbac.roles.assign', { userId: member.sub, roleKey: 'read-only' }, owner, organizationId);
        await call('rbac.roles.revoke', { userId: member.sub, roleKey: 'read-only' }, owner, organizationId);
        return {
          payload: { organizationId, roleId: await roleId('read-only'), roleKey: 'read-only', userId: member.sub, revokedBy: owner.sub },
          organizationId,
          userId: member.sub,
        };
      },
    },
  ],
  'rbac.role-created': [
    {
      cause: 'rbac.roles.create',
      async run() {
        await call('rbac.roles.create', { key: 'auditor', name: 'Auditor', permissions: ['records.read', 'data-models.read'] }, owner, organizationId);
        return {
          payload: { organizationId, roleId: await roleId('auditor'), roleKey: 'auditor', permissions: ['data-models.read', 'records.read'] },
          organizationId,
        };
      },
    },
  ],
  'rbac.role-updated': [
    {
      cause: 'rbac.roles.update',
      async run() {
        await call('rbac.roles.create', { key: 'editor', name: 'Editor', permissions: ['records.read'] }, owner, organizationId);
        await call('rbac.roles.update', { key: 'editor', permissions: ['records.read', 'records.update'] }, owner, organizationId);
        return { payload: { organizationId, roleId: await roleId('editor'), roleKey: 'editor', changes: ['permissions'] }, organizationId };
      },
    },
  ],
  'rbac.role-deleted': [
    {
      cause: 'rbac.roles.delete',
      async run() {
        await call('rbac.roles.create', { key: 'temporary', name: 'Temporary', permissions: [] }, owner, organizationId);
        const id = await roleId('temporary');
        await call('rbac.roles.delete', { key: 'temporary' }, owner, organizationId);
        return { payload: { organizationId, roleId: id, roleKey: 'temporary' }, organizationId };
      },
    },
  ],
  'notification.created': [
    {
      cause: 'organizations.acceptInvite (the inviter hears) and rbac.roles.assign (the person given the role hears)',
      async run() {
        const who = await invitedMember('notified');
        await call('rbac.roles.assign', { userId: who.sub, roleKey: 'admin' }, owner, organizationId);
        const notificationOf = async (userId: string, kind: string) => {
          const [notification] = await sql<{ id: string; title: string }>(
            'SELECT id, title FROM notifications WHERE user_id = ? AND kind = ? ORDER BY id DESC LIMIT 1',
            [userId, kind],
          );
          return { payload: { notificationId: notification.id, userId, kind, title: notification.title }, organizationId, userId };
        };
        return [await notificationOf(owner.sub, 'organization.invite-accepted'), await notificationOf(who.sub, 'rbac.role-assigned')];
      },
    },
  ],
  'notification.delivery-failed': [
    {
      cause: 'an email job (notifications.emails.send), when the SMTP server refuses the email',
      async run() {
        // Only this scenario's email is due: the others' emails were queued by earlier scenarios.
        await sql(`UPDATE notification_emails SET status = 'sent' WHERE status = 'pending'`);
        const who = await invitedMember('unreachable');
        await call('rbac.roles.assign', { userId: who.sub, roleKey: 'admin' }, owner, organizationId);
        await sql(`UPDATE notification_emails SET status = 'sent' WHERE status = 'pending' AND user_id <> ?`, [who.sub]);
        const [{ notification_id: notificationId }] = await sql<{ notification_id: string }>(
          `SELECT notification_id FROM notification_emails WHERE user_id = ? AND status = 'pending'`,
          [who.sub],
        );
        let sent = 0;
        await runtime.jobs.drain<EmailJob>(EMAIL_QUEUE, async (job) => void (sent += await runEmailJob(runtime, job)), { limit: 1000 });
        expect(sent).toBe(1);
        return {
          payload: { notificationId, userId: who.sub, channel: 'email', error: expect.stringContaining('Mailbox unavailable'), attempt: 1, willRetry: true },
          organizationId,
          userId: who.sub,
        };
      },
    },
  ],
  'automation.created': [
    {
      cause: 'automations.create',
      async run() {
        const { id } = await call<{ id: string }>(
          'automations.create',
          { name: 'Hook', trigger: { type: 'http' }, actions: [{ type: 'create-record', model: 'tasks', data: { title: 'x' } }] },
          owner,
          organizationId,
        );
        return { payload: { automationId: id, organizationId, name: 'Hook' }, organizationId };
      },
    },
  ],
  'automation.updated': [
    {
      cause: 'automations.update',
      async run() {
        const { id } = await call<{ id: string }>(
          'automations.create',
          { name: 'Before', trigger: { type: 'http' }, actions: [{ type: 'create-record', model: 'tasks', data: { title: 'x' } }] },
          owner,
          organizationId,
        );
        await call('automations.update', { id, name: 'After', enabled: false }, owner, organizationId);
        return { payload: { automationId: id, organizationId, changes: ['name', 'enabled'] }, organizationId };
      },
    },
  ],
  'automation.deleted': [
    {
      cause: 'automations.delete',
      async run() {
        const { id } = await call<{ id: string }>(
          'automations.create',
          { name: 'Gone', trigger: { type: 'http' }, actions: [{ type: 'create-record', model: 'tasks', data: { title: 'x' } }] },
          owner,
          organizationId,
        );
        await call('automations.delete', { id }, owner, organizationId);
        return { payload: { automationId: id, organizationId }, organizationId };
      },
    },
  ],
  'automation.run-started': [
    {
      cause: 'a runner starting a queued run',
      async run() {
        const { automationId, runId, causedBy } = await runAutomationOnce([{ type: 'create-record', model: 'tasks', data: { title: 'Run' } }]);
        return { payload: { automationId, runId, trigger: 'manual' }, organizationId, causedBy };
      },
    },
  ],
  'automation.run-succeeded': [
    {
      cause: 'a run whose actions all succeeded',
      async run() {
        const { automationId, runId, causedBy } = await runAutomationOnce([{ type: 'create-record', model: 'tasks', data: { title: 'Run' } }]);
        return { payload: { automationId, runId, durationMs: expect.any(Number) as number }, organizationId, causedBy };
      },
    },
  ],
  'automation.run-failed': [
    {
      cause: 'a run whose action failed',
      async run() {
        // A model archived after the automation was saved (a missing one is refused at save).
        await call('dataModels.create', { key: 'doomed', name: 'Doomed' }, owner, organizationId);
        const { automationId, runId, causedBy } = await runAutomationOnce([{ type: 'create-record', model: 'doomed', data: { title: 'Run' } }], () =>
          call('dataModels.archive', { key: 'doomed' }, owner, organizationId),
        );
        return { payload: { automationId, runId, error: 'Action 1 (create-record) failed: Data model not found' }, organizationId, causedBy };
      },
    },
  ],
  'feature-flag.flipped': [
    {
      cause: 'featureFlags.set (platform admin)',
      async run() {
        await call('featureFlags.set', { key: 'public-api.enabled', enabled: true }, admin);
        // Platform-wide: no organization, no user.
        return { payload: { key: 'public-api.enabled', enabled: true, previous: false, flippedBy: admin.sub } };
      },
    },
  ],
  'kanban.board-created': [
    {
      cause: 'kanban.boards.create',
      async run() {
        await modelWithStage('stories');
        const { id } = await call<{ id: string }>('kanban.boards.create', { name: 'Stories', modelKey: 'stories', fieldKey: 'stage' }, owner, organizationId);
        return { payload: { boardId: id, name: 'Stories', modelKey: 'stories', fieldKey: 'stage' }, organizationId };
      },
    },
  ],
  'kanban.column-created': [
    {
      cause: 'kanban.columns.create',
      async run() {
        const boardId = await cardBoardId();
        await call('kanban.columns.create', { boardId, id: 'review', label: 'Review' }, owner, organizationId);
        return { payload: { boardId, columnId: 'review', name: 'Review' }, organizationId };
      },
    },
  ],
  'kanban.card-created': [
    {
      cause: 'records.create of a record with a value in the board field',
      async run() {
        const { boardId, record } = await newCard('New card');
        return { payload: { boardId, columnId: 'todo', cardId: record.id, title: 'New card', modelKey: 'cards' }, organizationId };
      },
    },
  ],
  'kanban.card-updated': [
    {
      cause: 'records.update of a card',
      async run() {
        const { boardId, record } = await newCard('Renamed card');
        await call('records.update', { id: record.id, data: { title: 'Renamed' } }, owner, organizationId);
        return { payload: { boardId, cardId: record.id, changes: ['title'], modelKey: 'cards' }, organizationId };
      },
    },
  ],
  'kanban.card-moved': [
    {
      cause: 'kanban.cards.move',
      async run() {
        const { boardId, record } = await newCard('Moving card');
        await call('kanban.cards.move', { boardId, recordId: record.id, column: 'doing' }, owner, organizationId);
        return { payload: { boardId, cardId: record.id, fromColumnId: 'todo', toColumnId: 'doing', modelKey: 'cards' }, organizationId };
      },
    },
  ],
  'kanban.card-deleted': [
    {
      cause: 'records.delete of a card',
      async run() {
        const { boardId, record } = await newCard('Deleted card');
        await call('records.delete', { id: record.id }, owner, organizationId);
        return { payload: { boardId, cardId: record.id, modelKey: 'cards' }, organizationId };
      },
    },
  ],
  'kanban.card-assigned': [
    {
      cause: 'kanban.cards.assign',
      async run() {
        const { boardId, record } = await newCard('Assigned card');
        await call('kanban.cards.assign', { boardId, recordId: record.id, userIds: [member.sub] }, owner, organizationId);
        return { payload: { boardId, cardId: record.id, assigneeUserId: member.sub, assignedBy: owner.sub }, organizationId };
      },
    },
  ],
  'data-models.record-created': [
    {
      cause: 'records.create',
      async run() {
        const record = await newRecord('Created');
        return {
          payload: { modelKey: 'tasks', recordId: record.id, record },
          organizationId,
          subscriptionAliases: ['data-models.tasks.record-created'],
        };
      },
    },
  ],
  'data-models.record-updated': [
    {
      cause: 'records.update',
      async run() {
        const { id } = await newRecord('Before');
        const record = await call<Record<string, unknown>>('records.update', { id, data: { title: 'After' } }, owner, organizationId);
        return {
          payload: { modelKey: 'tasks', recordId: id, changedFields: ['title'], record, previous: { title: 'Before' } },
          organizationId,
          subscriptionAliases: ['data-models.tasks.record-updated'],
        };
      },
    },
    {
      cause: 'records.restore',
      async run() {
        const { id } = await newRecord('Restored');
        await call('records.delete', { id }, owner, organizationId);
        const record = await call<Record<string, unknown>>('records.restore', { id }, owner, organizationId);
        return {
          payload: { modelKey: 'tasks', recordId: id, changedFields: [], record },
          organizationId,
          subscriptionAliases: ['data-models.tasks.record-updated'],
        };
      },
    },
  ],
  'data-models.record-deleted': [
    {
      cause: 'records.delete',
      async run() {
        const { id } = await newRecord('Deleted');
        await call('records.delete', { id }, owner, organizationId);
        return { payload: { modelKey: 'tasks', recordId: id, hard: false }, organizationId, subscriptionAliases: ['data-models.tasks.record-deleted'] };
      },
    },
    {
      cause: 'records.delete with hard: true',
      async run() {
        const { id } = await newRecord('Purged');
        await call('records.delete', { id, hard: true }, owner, organizationId);
        return { payload: { modelKey: 'tasks', recordId: id, hard: true }, organizationId, subscriptionAliases: ['data-models.tasks.record-deleted'] };
      },
    },
  ],
  'data-models.field-values-rewritten': [
    {
      cause: 'dataModels.fields.update converting stored values to the new type',
      async run() {
        await call('dataModels.create', { key: 'contacts_rewritten', name: 'Contacts' }, owner, organizationId);
        await call('dataModels.fields.create', { model: 'contacts_rewritten', key: 'contact', name: 'Contact', type: 'TEXT' }, owner, organizationId);
        await call('records.create', { model: 'contacts_rewritten', data: { title: 'Ada', contact: 'Ada@Example.COM' } }, owner, organizationId);
        await call('dataModels.fields.update', { model: 'contacts_rewritten', key: 'contact', type: 'EMAIL' }, owner, organizationId);
        return { payload: { modelKey: 'contacts_rewritten', fieldKey: 'contact', count: 1 }, organizationId };
      },
    },
  ],
};

/** The whole envelope: exactly these keys, so a missing or stray organizationId or userId fails. */
function envelope<T extends EventType>(type: T, expected: Expected<T>): Record<string, unknown> {
  return {
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    type,
    occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    correlationId: expect.any(String),
    ...(expected.subscriptionAliases ? { subscriptionAliases: expected.subscriptionAliases } : {}),
    ...(expected.organizationId ? { organizationId: expected.organizationId } : {}),
    ...(expected.userId ? { userId: expected.userId } : {}),
    ...(expected.causedBy ? { causedBy: expected.causedBy } : {}),
    // Events about a record carry its access for the webhook outbox; no scenario restricts its record.
    ...(ABOUT_A_RECORD.test(type) ? { recordAccess: { roleIds: [] } } : {}),
    payload: expected.payload,
  };
}

const ABOUT_A_RECORD = /^(data-models\.record-|kanban\.card-(created|updated|moved|deleted)$)/;

const cases = (Object.entries(SCENARIOS) as Array<[Covered, Array<Scenario<Covered>>]>).flatMap(([type, scenarios]) =>
  scenarios.map((scenario) => [type, scenario.cause, scenario] as const),
);

describe('event emission', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    refusingSmtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo: (_address, _session, callback) => callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 })),
    });
    await new Promise<void>((resolve) => refusingSmtp.listen(0, '127.0.0.1', resolve));
    refusingSmtpPort = (refusingSmtp.server.address() as { port: number }).port;
    runtime = await createRuntime(
      loadConfig({
        NODE_ENV: 'test',
        ...database.env,
        PLATFORM_ADMIN_EMAILS: PLATFORM_ADMIN,
        FEATURE_FLAGS: 'public-api.service-accounts=true',
        SMTP_URL: `smtp://127.0.0.1:${refusingSmtpPort}`,
      }),
      { name: 'emission-test', poolSize: 3 },
    );
    owner = person('owner');
    admin = { sub: randomUUID(), email: PLATFORM_ADMIN, name: 'Operator' };
    organizationId = (await call<{ id: string }>('organizations.create', { name: 'Emission Co', slug: 'emission-co' }, owner)).id;
    member = await invitedMember('member');
    await call('dataModels.create', { key: 'tasks', name: 'Tasks' }, owner, organizationId);
  });
  afterAll(async () => {
    await runtime.close();
    await new Promise<void>((resolve) => refusingSmtp.close(() => resolve()));
    await database.drop();
  });

  it('covers every type of the catalog, except those named as coming later', () => {
    const later: readonly string[] = [...COMES_LATER, ...TESTED_WITH_THE_WEBHOOK_WORKER];
    const covered = Object.keys(SCENARIOS);
    expect(EVENT_TYPES.filter((type) => !covered.includes(type) && !later.includes(type))).toEqual([]);
    expect(covered.filter((type) => later.includes(type))).toEqual([]);
    expect([...covered, ...later].filter((type) => !(EVENT_TYPES as readonly string[]).includes(type))).toEqual([]);
  });

  it.each(cases)('%s is emitted by %s', async (type, _cause, scenario) => {
    const seen: EventEnvelope[] = [];
    const unsubscribe = runtime.bus.subscribe('*', (event) => {
      seen.push(event);
    });
    try {
      const expected = [await scenario.run()].flat();
      await runtime.bus.idle();
      expect(seen.filter((event) => event.type === type)).toStrictEqual(expected.map((event) => envelope(type, event)));
    } finally {
      unsubscribe();
    }
  });
});
