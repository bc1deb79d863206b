import { fail, ok } from '../core/result';
import { textRules } from '../filter/operand-rules';
import { checkRichText } from '../rich-text/check-rich-text';
import { exceedsLength, STORABLE_TEXT_PATTERN } from '../values/text';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser, isEmptyText } from './field-type-handler';
import type { TextConfig } from './text';
import { LONG_TEXT_MAX_LENGTH, maxLengthSchema } from './text';
import { TEXT_OPS } from '../filter/op-sets';

/** Rich text is stored as the submitted HTML; anything outside the allow-list is refused, never stripped. */
export const richTextHandler: FieldTypeHandler<TextConfig> = {
  parseConfig: configParser(maxLengthSchema(LONG_TEXT_MAX_LENGTH)),
  validateValue(value, config, path) {
    if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be an HTML string.');
    if (exceedsLength(value, config.maxLength)) {
      return fail(path, 'too_long', `Must be at most ${config.maxLength} characters of HTML.`);
    }
    const check = checkRichText(value);
    return check.ok ? ok(value) : fail(path, 'invalid_format', `Disallowed HTML: ${check.reason}`);
  },
  isEmpty: isEmptyText,
  valueKind: () => 'text',
  filterOps: () => TEXT_OPS,
  filterOpsOfAnyConfig: TEXT_OPS,
  filterOperands: (config) => textRules(config.maxLength),
  valueSchema: (config) => ({ type: 'string', maxLength: config.maxLength, pattern: STORABLE_TEXT_PATTERN, contentMediaType: 'text/html' }),
};
