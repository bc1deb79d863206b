import { validationFailed } from '@mrp/platform';
import { isLive, type FieldShape } from '../models/model-store';

/**
 * The keys a read asked for, checked against the model's live fields (title included); undefined
 * when it asked for none, which means all of them. An unknown or archived key is refused, so a
 * misspelt key is a clear error rather than a silently missing value.
 */
export function parseFieldSelection(text: string | undefined, fields: readonly FieldShape[]): ReadonlySet<string> | undefined {
  if (text === undefined) return undefined;
  const known = new Set(['title', ...fields.filter(isLive).map((field) => field.key)]);
  const keys = text.split(',').map((key) => key.trim());
  const problems = keys
    .filter((key) => !known.has(key))
    .map((key) =>
      key === ''
        ? { field: 'fields', code: 'invalid_format', message: 'An empty key: list field keys separated by commas' }
        : { field: 'fields', code: 'unknown_field', message: `Unknown field "${key}"` },
    );
  if (problems.length > 0) throw validationFailed(problems, 'fields names keys the model does not have');
  return new Set(keys);
}
