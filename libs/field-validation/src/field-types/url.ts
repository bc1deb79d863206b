import { fail, ok } from '../core/result';
import { textRules } from '../filter/operand-rules';
import { isHttpUrl, MAX_URL_LENGTH } from '../values/http-url';
import type { EmptyConfig } from './boolean';
import { parseEmptyConfig } from './boolean';
import type { FieldTypeHandler } from './field-type-handler';
import { isEmptyText } from './field-type-handler';
import { TEXT_OPS } from '../filter/op-sets';

export function validateHttpUrl(value: unknown, path: string) {
  if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a URL string.');
  if (value.length > MAX_URL_LENGTH) return fail(path, 'too_long', `Must be at most ${MAX_URL_LENGTH} characters.`);
  return isHttpUrl(value) ? ok(value) : fail(path, 'invalid_format', 'Must be an absolute http:// or https:// URL.');
}

/** An absolute http(s) URL, as validateHttpUrl accepts it. */
export const HTTP_URL_SCHEMA = Object.freeze({ type: 'string', format: 'uri', maxLength: MAX_URL_LENGTH, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' });

export const urlHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue: (value, _config, path) => validateHttpUrl(value, path),
  isEmpty: isEmptyText,
  valueKind: () => 'text',
  filterOps: () => TEXT_OPS,
  filterOpsOfAnyConfig: TEXT_OPS,
  filterOperands: () => textRules(MAX_URL_LENGTH, validateHttpUrl),
  valueSchema: () => ({ ...HTTP_URL_SCHEMA }),
};
