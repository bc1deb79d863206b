import { arrayRule, integerRule } from '../config/config-rules';
import { optional } from '../config/config-schema';
import { fail, ok } from '../core/result';
import type { OperandValidator } from '../filter/operand-rules';
import { isCalendarDateString } from '../values/calendar-date';
import { normaliseDateTime } from '../values/date-time';
import type { EmptyConfig } from './boolean';
import { parseEmptyConfig } from './boolean';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser } from './field-type-handler';
import { ORDERED_OPS } from '../filter/op-sets';

/** A DATETIME field's reminders: minutes before its value, ascending, distinct; absent means none. */
export type DateTimeConfig = { reminders?: number[] };

/** Reminders a DATETIME field may carry, and how far ahead one may be (28 days, in minutes). */
export const REMINDER_LIMITS = Object.freeze({ maxReminders: 5, maxMinutesBefore: 28 * 24 * 60 });

const dateTimeConfigSchema = {
  reminders: optional(
    arrayRule(integerRule({ min: 0, max: REMINDER_LIMITS.maxMinutesBefore }), {
      minItems: 0,
      maxItems: REMINDER_LIMITS.maxReminders,
      unique: true,
    }),
  ),
};

/** One canonical form, so a configuration validates to itself: ascending, and no empty list. */
const parseDateTimeConfig = configParser(dateTimeConfigSchema, ({ reminders }) =>
  ok<DateTimeConfig>(reminders && reminders.length > 0 ? { reminders: [...reminders].sort((a, b) => a - b) } : {}),
);

/** A calendar day, as values and filter operands take it. */
export const dateOperand: OperandValidator = (value, path) => {
  if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a date string (YYYY-MM-DD).');
  return isCalendarDateString(value)
    ? ok(value)
    : fail(path, 'invalid_format', 'Must be a real calendar date formatted YYYY-MM-DD.');
};

/** An instant with a time zone, as values and filter operands take it; answered in UTC. */
export const dateTimeOperand: OperandValidator = (value, path) => {
  if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be an ISO 8601 date-time string.');
  const parsed = normaliseDateTime(value);
  if (parsed.ok) return ok(parsed.utc);
  return parsed.reason === 'range'
    ? fail(path, 'out_of_range', 'Must fall between the years 0001 and 9999 in UTC.')
    : fail(path, 'invalid_format', 'Must be an ISO 8601 date-time with a time zone, e.g. 2024-01-01T10:00:00Z.');
};

export const dateHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue: (value, _config, path) => dateOperand(value, path),
  valueKind: () => 'date',
  filterOps: () => ORDERED_OPS,
  filterOpsOfAnyConfig: ORDERED_OPS,
  filterOperands: () => ({ operand: dateOperand }),
  valueSchema: () => ({ type: 'string', format: 'date' }),
};

export const dateTimeHandler: FieldTypeHandler<DateTimeConfig> = {
  parseConfig: parseDateTimeConfig,
  validateValue: (value, _config, path) => dateTimeOperand(value, path),
  valueKind: () => 'datetime',
  filterOps: () => ORDERED_OPS,
  filterOpsOfAnyConfig: ORDERED_OPS,
  filterOperands: () => ({ operand: dateTimeOperand }),
  valueSchema: () => ({ type: 'string', format: 'date-time', description: 'Any time zone offset; answered in UTC (…Z)' }),
};
