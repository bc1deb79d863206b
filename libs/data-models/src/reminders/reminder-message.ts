import type { NotificationMessage } from '@mrp/authz';
import type { ClaimedReminder, ReminderField } from './due-reminders';

export const REMINDER_NOTIFICATION_KIND = 'data-models.record-reminder';

/** Notification titles are at most 500 characters; record titles may be 1000. */
const MAX_TITLE_LENGTH = 500;
const TITLE_PREFIX = 'Reminder: ';

/** Shortens text to `max` UTF-16 units with an ellipsis, never splitting a surrogate pair (it could not be stored). */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** "15 minutes", "2 hours", "1 day": the offset as it was most likely entered. */
export function describeOffset(minutes: number): string {
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`;
  if (minutes > 0 && minutes % 1440 === 0) return unit(minutes / 1440, 'day');
  if (minutes > 0 && minutes % 60 === 0) return unit(minutes / 60, 'hour');
  return unit(minutes, 'minute');
}

/**
 * What the record's creator reads: the record's title, the field, its time and how far ahead the
 * reminder was set; `data` carries the same for a front end to link and format. It is about the
 * record's organization, so its `notification.created` event is that organization's.
 */
export function reminderMessage(field: ReminderField, offsetMinutes: number, reminder: ClaimedReminder): NotificationMessage {
  const when = offsetMinutes === 0 ? 'reminder at the time' : `reminder ${describeOffset(offsetMinutes)} before`;
  return {
    kind: REMINDER_NOTIFICATION_KIND,
    title: `${TITLE_PREFIX}${shorten(reminder.title, MAX_TITLE_LENGTH - TITLE_PREFIX.length)}`,
    body: `${field.fieldName} (${field.modelName}): ${reminder.value}, ${when}`,
    data: {
      organizationId: field.organizationId,
      model: field.modelKey,
      recordId: reminder.recordId,
      field: field.fieldKey,
      at: reminder.value,
      minutesBefore: offsetMinutes,
    },
    organizationId: field.organizationId,
  };
}
