import { isPlainObject } from '../core/plain-object';
import type { FieldError } from '../core/result';
import { UNSTORABLE_TEXT_MESSAGES, unstorableText } from './text';

/**
 * The first string or object key inside a validated, normalised value that PostgreSQL could not
 * store exactly (see `unstorableText`), as an `invalid_format` error at its path; undefined when
 * every part can be stored. Walks normalised values only, whose depth the validators bound.
 */
export function findUnstorableText(value: unknown, path: string): FieldError | undefined {
  if (typeof value === 'string') {
    const reason = unstorableText(value);
    return reason === undefined ? undefined : { field: path, code: 'invalid_format', message: UNSTORABLE_TEXT_MESSAGES[reason] };
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const error = findUnstorableText(value[index], `${path}[${index}]`);
      if (error) return error;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const keyReason = unstorableText(key);
    if (keyReason !== undefined) {
      return { field: `${path}.${key}`, code: 'invalid_format', message: `The key ${UNSTORABLE_TEXT_MESSAGES[keyReason].replace(/^M/, 'm')}` };
    }
    const error = findUnstorableText(item, `${path}.${key}`);
    if (error) return error;
  }
  return undefined;
}
