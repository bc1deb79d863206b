import { fail, ok } from '../core/result';
import { textRules } from '../filter/operand-rules';
import { MAX_EMAIL_LENGTH, normaliseEmailAddress } from '../values/email-address';
import type { EmptyConfig } from './boolean';
import { parseEmptyConfig } from './boolean';
import type { FieldTypeHandler } from './field-type-handler';
import { isEmptyText } from './field-type-handler';
import { TEXT_OPS } from '../filter/op-sets';

export const emailHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue(value, _config, path) {
    if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be an email address string.');
    if (value.length > MAX_EMAIL_LENGTH) {
      return fail(path, 'too_long', `Must be at most ${MAX_EMAIL_LENGTH} characters.`);
    }
    const address = normaliseEmailAddress(value);
    return address === undefined
      ? fail(path, 'invalid_format', 'Must be an email address such as name@example.com.')
      : ok(address);
  },
  isEmpty: isEmptyText,
  valueKind: () => 'text',
  filterOps: () => TEXT_OPS,
  filterOpsOfAnyConfig: TEXT_OPS,
  filterOperands: (config) => textRules(MAX_EMAIL_LENGTH, (value, path) => emailHandler.validateValue(value, config, path)),
  valueSchema: () => ({ type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH }),
};
