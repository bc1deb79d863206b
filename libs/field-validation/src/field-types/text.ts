import { integerRule } from '../config/config-rules';
import { withDefault } from '../config/config-schema';
import { fail, ok } from '../core/result';
import { textRules } from '../filter/operand-rules';
import { containsLineBreak, exceedsLength, SINGLE_LINE_PATTERN, STORABLE_TEXT_PATTERN } from '../values/text';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser, isEmptyText } from './field-type-handler';
import { TEXT_OPS } from '../filter/op-sets';

export type TextConfig = { maxLength: number };

/** The default length is also the ceiling: longer content belongs in a roomier field type. */
export const TEXT_MAX_LENGTH = 1000;
export const LONG_TEXT_MAX_LENGTH = 100_000;

export function maxLengthSchema(ceiling: number) {
  return { maxLength: withDefault(integerRule({ min: 1, max: ceiling }), ceiling) };
}

function plainTextHandler(options: { ceiling: number; singleLine: boolean }): FieldTypeHandler<TextConfig> {
  return {
    parseConfig: configParser(maxLengthSchema(options.ceiling)),
    validateValue(value, config, path) {
      if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a string.');
      if (exceedsLength(value, config.maxLength)) {
        return fail(path, 'too_long', `Must be at most ${config.maxLength} characters.`);
      }
      if (options.singleLine && containsLineBreak(value)) {
        return fail(path, 'invalid_format', 'Must not contain line breaks.');
      }
      return ok(value);
    },
    isEmpty: isEmptyText,
    valueKind: () => 'text',
    filterOps: () => TEXT_OPS,
    filterOpsOfAnyConfig: TEXT_OPS,
    filterOperands: (config) => textRules(config.maxLength),
    valueSchema: (config) => ({
      type: 'string',
      maxLength: config.maxLength,
      pattern: options.singleLine ? SINGLE_LINE_PATTERN : STORABLE_TEXT_PATTERN,
    }),
  };
}

export const textHandler = plainTextHandler({ ceiling: TEXT_MAX_LENGTH, singleLine: true });
export const longTextHandler = plainTextHandler({ ceiling: LONG_TEXT_MAX_LENGTH, singleLine: false });
