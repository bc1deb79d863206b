import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { defineProcedure, sqlTextArray, type ProcedureContext } from '@mrp/platform';
import { membersHolding, notifiableUserIds, type UserNotifier } from '@mrp/authz';
import { runSql, sql } from '../query/sql';
import { claimDueReminders, listReminderFields, pruneReminderMarks, type ClaimedReminder, type ReminderField } from './due-reminders';
import { reminderMessage } from './reminder-message';

/** What the `send-calendar-reminders` task's principal holds, and nothing else does. */
export const SEND_CALENDAR_REMINDERS = 'system.send-calendar-reminders';

/** Reminders one run sends at most; the rest wait for the next run (a minute later), so a run stays short. */
export const MAX_REMINDERS_PER_RUN = 1000;

export interface ReminderProcedureDeps {
  /** Writes the in-app notifications (the notifications lib, handed in by the runtime). */
  notifier: UserNotifier;
}

type SystemContext = ProcedureContext<'system'>;

/** The roles each record is restricted to; a record without any is visible to every reader of its model. */
async function restrictionsOf(em: EntityManager, recordIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const rows = await runSql<{ record_id: string; role_id: string }>(
    em,
    sql`SELECT record_id, role_id FROM record_access WHERE record_id = ANY(${sqlTextArray(recordIds)}::uuid[])`,
  );
  const byRecord = new Map<string, Set<string>>();
  for (const row of rows) byRecord.set(row.record_id, (byRecord.get(row.record_id) ?? new Set()).add(row.role_id));
  return byRecord;
}

/**
 * Notifies each reminder's record creator, but only one who could read the record now: a person
 * (the notifier never writes to service accounts), a member of the organization who may act and
 * holds `records.read`, and listed by the record's row-level access if it has any. A reminder
 * reveals the record's title and date, so it asks what a read would. Returns how many were sent.
 */
async function notifyCreators(
  ctx: SystemContext,
  notifier: UserNotifier,
  field: ReminderField,
  offsetMinutes: number,
  reminders: readonly ClaimedReminder[],
): Promise<number> {
  if (reminders.length === 0) return 0;
  const creators = [...new Set(reminders.map((reminder) => reminder.createdBy))];
  const readers = await membersHolding(ctx.em, field.organizationId, creators, 'records.read');
  const people = new Set(await notifiableUserIds(ctx.em, [...readers.keys()]));
  const restrictions = await restrictionsOf(ctx.em, reminders.map((reminder) => reminder.recordId));
  let sent = 0;
  for (const reminder of reminders) {
    const roleIds = readers.get(reminder.createdBy);
    if (!roleIds || !people.has(reminder.createdBy)) continue;
    const restrictedTo = restrictions.get(reminder.recordId);
    if (restrictedTo && !roleIds.some((roleId) => restrictedTo.has(roleId))) continue;
    await notifier.notify(ctx, [reminder.createdBy], reminderMessage(field, offsetMinutes, reminder));
    sent += 1;
  }
  return sent;
}

/**
 * The `send-calendar-reminders` task: sends every due reminder of DATETIME fields with
 * `config.reminders` (see due-reminders.ts for which are due), at most MAX_REMINDERS_PER_RUN a run.
 * Each reminder is claimed by its mark in this transaction, so it is sent exactly once, whatever
 * runs at once; a run that finds another under way returns at once rather than queue behind it.
 * Also forgets marks too old to matter. Returns how many notifications it sent.
 */
export function createSendDueReminders(deps: ReminderProcedureDeps) {
  return defineProcedure({
    name: 'dataModels.reminders.sendDue',
    summary: "Notify records' creators of their due calendar reminders",
    scope: 'system',
    permission: SEND_CALENDAR_REMINDERS,
    input: Type.Object({}, { additionalProperties: false }),
    output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
    async handler(ctx) {
      const [{ locked }] = await runSql<{ locked: boolean }>(
        ctx.em,
        sql`SELECT pg_try_advisory_xact_lock(hashtext('data-models.calendar-reminders'), 0) AS locked`,
      );
      if (!locked) return { processed: 0 };
      await pruneReminderMarks(ctx.em, MAX_REMINDERS_PER_RUN);

      let budget = MAX_REMINDERS_PER_RUN;
      let processed = 0;
      for (const field of await listReminderFields(ctx.em)) {
        for (const offset of field.offsets) {
          if (budget === 0) return { processed };
          const claimed = await claimDueReminders(ctx.em, field, offset, { limit: budget });
          budget -= claimed.length;
          processed += await notifyCreators(ctx, deps.notifier, field, offset, claimed);
        }
      }
      return { processed };
    },
  });
}
