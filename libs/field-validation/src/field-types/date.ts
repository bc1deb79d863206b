import { fail, ok } from '../core/result';
import { isCalendarDateString } from '../values/calendar-date';
import { normaliseDateTime } from '../values/date-time';
import type { EmptyConfig } from './boolean';
import { parseEmptyConfig } from './boolean';
import type { FieldTypeHandler } from './field-type-handler';

export const dateHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue(value, _config, path) {
    if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a date string (YYYY-MM-DD).');
    return isCalendarDateString(value)
      ? ok(value)
      : fail(path, 'invalid_format', 'Must be a real calendar date formatted YYYY-MM-DD.');
  },
};

export const dateTimeHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue(value, _config, path) {
    if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be an ISO 8601 date-time string.');
    const parsed = normaliseDateTime(value);
    if (parsed.ok) return ok(parsed.utc);
    return parsed.reason === 'range'
      ? fail(path, 'out_of_range', 'Must fall between the years 0001 and 9999 in UTC.')
      : fail(path, 'invalid_format', 'Must be an ISO 8601 date-time with a time zone, e.g. 2024-01-01T10:00:00Z.');
  },
};
