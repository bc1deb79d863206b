import type { EntityManager } from '@mikro-orm/postgresql';
import { validateFieldConfig } from '@mrp/field-validation';
import { isoTimestamp, rawText, typedValue } from '../query/field-expressions';
import { runSql, sql, trustedSql, type SqlFragment } from '../query/sql';

/**
 * Which calendar reminders are due, and claiming them. A reminder of a DATETIME field with
 * `config.reminders` is due at the field's value minus the offset; it is sent when that time has
 * come and is at most `REMINDER_LOOKBACK_MINUTES` old (a scheduler that stopped for a while catches
 * up; a date entered long after its reminders passed does not fire them), and never when that time
 * was before the record was created.
 */

/** How late a reminder may still be sent. */
export const REMINDER_LOOKBACK_MINUTES = 60;

/** Marks are kept this long after their reminder time, far longer than any reminder could still be due. */
export const REMINDER_MARK_RETENTION_MINUTES = 24 * 60;

export interface ReminderField {
  organizationId: string;
  modelId: string;
  modelKey: string;
  modelName: string;
  fieldKey: string;
  fieldName: string;
  /** Minutes before the value, ascending. */
  offsets: number[];
}

interface ReminderFieldRow {
  organization_id: string;
  model_id: string;
  model_key: string;
  model_name: string;
  field_key: string;
  field_name: string;
  config: Record<string, unknown>;
}

/** Every live DATETIME field of a live model that carries reminders (the partial index data_fields_with_reminders). */
export async function listReminderFields(em: EntityManager): Promise<ReminderField[]> {
  const rows = await runSql<ReminderFieldRow>(
    em,
    sql`SELECT m.organization_id, m.id AS model_id, m.key AS model_key, m.name AS model_name,
               f.key AS field_key, f.name AS field_name, f.config
          FROM data_fields f
          JOIN data_models m ON m.id = f.model_id AND m.archived_at IS NULL
         WHERE f.type = 'DATETIME' AND f.archived_at IS NULL AND (f.config -> 'reminders') IS NOT NULL
         ORDER BY f.id`,
  );
  return rows.flatMap((row) => {
    // Stored configurations were validated when written; this reads them in their canonical form.
    const config = validateFieldConfig('DATETIME', row.config);
    const offsets = config.ok && Array.isArray(config.value['reminders']) ? (config.value['reminders'] as number[]) : [];
    if (offsets.length === 0) return [];
    return [
      {
        organizationId: row.organization_id,
        modelId: row.model_id,
        modelKey: row.model_key,
        modelName: row.model_name,
        fieldKey: row.field_key,
        fieldName: row.field_name,
        offsets,
      },
    ];
  });
}

export interface ClaimedReminder {
  recordId: string;
  title: string;
  createdBy: string;
  /** The field's value as stored (ISO 8601 UTC). */
  value: string;
  /** The value minus the offset, ISO 8601 UTC. */
  remindAt: string;
}

type ReminderTarget = Pick<ReminderField, 'organizationId' | 'modelId' | 'fieldKey'>;

export interface ClaimOptions {
  /** At most this many reminders are claimed. */
  limit: number;
  /** The moment the reminders are due by (ISO 8601); the database's transaction time when absent. */
  now?: string;
}

/**
 * Claims the due, not yet sent reminders of one field and offset: inserts their marks and returns
 * them, oldest first. A mark another transaction holds or committed is skipped (ON CONFLICT DO
 * NOTHING waits for that transaction, then skips), so two runs at once claim each reminder once;
 * the caller sends the claimed reminders in the same transaction, so a failed send gives its
 * claims back. The value is compared through the field's typed expression, with the model, live
 * rows and a range on that expression, so an indexed field's partial expression index serves the
 * scan and its order.
 */
export async function claimDueReminders(
  em: EntityManager,
  field: ReminderTarget,
  offsetMinutes: number,
  options: ClaimOptions,
): Promise<ClaimedReminder[]> {
  return runSql<ClaimedReminder>(em, claimStatement(field, offsetMinutes, options));
}

/** The one statement of claimDueReminders (exported for plan checks). */
export function claimStatement(field: ReminderTarget, offsetMinutes: number, options: ClaimOptions): SqlFragment {
  if (!Number.isInteger(offsetMinutes) || offsetMinutes < 0) throw new Error('A reminder offset is a whole number of minutes, at least 0');
  const value = typedValue(field.fieldKey, 'datetime');
  const now: SqlFragment = options.now === undefined ? trustedSql('now()') : sql`${options.now}::timestamptz`;
  const minutes = (count: number) => sql`make_interval(mins => ${count}::int)`;
  return sql`WITH due AS (
          SELECT r.id, r.title, r.created_by, ${rawText(field.fieldKey)} AS value_text, ${value} AS value
            FROM records r
           WHERE r.organization_id = ${field.organizationId}::uuid AND r.model_id = ${field.modelId}::uuid
             AND r.deleted_at IS NULL
             AND ${value} <= ${now} + ${minutes(offsetMinutes)}
             AND ${value} > ${now} + ${minutes(offsetMinutes - REMINDER_LOOKBACK_MINUTES)}
             AND ${value} - ${minutes(offsetMinutes)} >= r.created_at
             AND NOT EXISTS (
               SELECT 1 FROM record_reminders_sent s
                WHERE s.record_id = r.id AND s.field_key = ${field.fieldKey}::text
                  AND s.offset_minutes = ${offsetMinutes}::int AND s.due_value = ${value})
           ORDER BY ${value}, r.id
           LIMIT ${options.limit}::int
        ),
        claimed AS (
          INSERT INTO record_reminders_sent (record_id, field_key, offset_minutes, due_value, remind_at)
          SELECT due.id, ${field.fieldKey}::text, ${offsetMinutes}::int, due.value, due.value - ${minutes(offsetMinutes)} FROM due
          ON CONFLICT DO NOTHING
          RETURNING record_id, remind_at
        )
        SELECT due.id AS "recordId", due.title, due.created_by AS "createdBy", due.value_text AS value,
               ${isoTimestamp('claimed.remind_at')} AS "remindAt"
          FROM claimed JOIN due ON due.id = claimed.record_id
         ORDER BY due.value, due.id`;
}

/**
 * Forgets marks whose reminder time is older than the retention: such a reminder can never be due
 * again (it is far outside the lookback), so the mark guards nothing. At most `limit` a call.
 */
export async function pruneReminderMarks(em: EntityManager, limit: number): Promise<number> {
  const rows = await runSql<{ record_id: string }>(
    em,
    sql`DELETE FROM record_reminders_sent
         WHERE (record_id, field_key, offset_minutes, due_value) IN (
           SELECT record_id, field_key, offset_minutes, due_value FROM record_reminders_sent
            WHERE remind_at < now() - ${`${REMINDER_MARK_RETENTION_MINUTES} minutes`}::interval
            ORDER BY remind_at LIMIT ${limit}::int)
         RETURNING record_id`,
  );
  return rows.length;
}
