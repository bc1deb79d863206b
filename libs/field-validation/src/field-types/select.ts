import { arrayRule, integerRule, objectRule, stringRule } from '../config/config-rules';
import type { ConfigOf } from '../config/config-schema';
import { optional, required } from '../config/config-schema';
import type { JsonSchema } from '../core/json-schema';
import type { Result } from '../core/result';
import { fail, ok } from '../core/result';
import type { OperandRules } from '../filter/operand-rules';
import { containsControlCharacter, containsLineBreak } from '../values/text';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser, isEmptyList } from './field-type-handler';
import { EQUALITY_OPS, SET_OPS } from '../filter/op-sets';

export interface SelectOption {
  value: string;
  label: string;
  color?: string;
}
export type SelectConfig = { options: SelectOption[] };
export type MultiSelectConfig = { options: SelectOption[]; maxSelected?: number };

export const MAX_OPTIONS = 500;
const MAX_OPTION_VALUE_LENGTH = 100;
const MAX_OPTION_LABEL_LENGTH = 200;
/** A hex colour or a palette name such as `blue`; the UI decides how names render. */
const COLOR = /^(?:#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}|[a-z][a-z0-9-]{0,31})$/;

const singleLine = (text: string): string | undefined =>
  containsLineBreak(text) || containsControlCharacter(text) ? undefined : text;

const singleLineRule = (maxLength: number) => stringRule({ maxLength, normalise: singleLine, description: 'a single line' });

const optionSchema = {
  value: required(singleLineRule(MAX_OPTION_VALUE_LENGTH)),
  label: optional(singleLineRule(MAX_OPTION_LABEL_LENGTH)),
  color: optional(
    stringRule({
      maxLength: 32,
      normalise: (text) => (COLOR.test(text) ? text : undefined),
      description: 'a hex colour (#rrggbb) or a palette name',
    }),
  ),
};

const optionsRule = arrayRule(objectRule(optionSchema), { minItems: 1, maxItems: MAX_OPTIONS });

/** Option values must be unique; a missing label defaults to the value. */
function completeOptions(options: readonly ConfigOf<typeof optionSchema>[]): Result<SelectOption[]> {
  const seen = new Set<string>();
  const completed: SelectOption[] = [];
  for (const [index, option] of options.entries()) {
    if (seen.has(option.value)) {
      return fail(`config.options[${index}].value`, 'invalid_option', 'Option values must be unique.');
    }
    seen.add(option.value);
    completed.push({
      value: option.value,
      label: option.label ?? option.value,
      ...(option.color === undefined ? {} : { color: option.color }),
    });
  }
  return ok(completed);
}

/** One option's value; the labels, when they differ, are named in the description. */
function optionValueSchema(options: readonly SelectOption[]): JsonSchema {
  const labelled = options.filter((option) => option.label !== option.value);
  return {
    type: 'string',
    enum: options.map((option) => option.value),
    ...(labelled.length > 0 ? { description: labelled.map((option) => `${option.value}: ${option.label}`).join('; ') } : {}),
  };
}

function isOptionValue(options: readonly SelectOption[], value: string): boolean {
  return options.some((option) => option.value === value);
}

/** One of the options: a select's value, and a filter operand on either kind of select. */
function checkOption(options: readonly SelectOption[], value: unknown, path: string): Result<string> {
  if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be an option value (a string).');
  return isOptionValue(options, value) ? ok(value) : fail(path, 'invalid_option', 'Must be one of the configured options.');
}

const optionOperand = (options: readonly SelectOption[]): OperandRules => ({ operand: (value, path) => checkOption(options, value, path) });

export const selectHandler: FieldTypeHandler<SelectConfig> = {
  parseConfig: configParser({ options: required(optionsRule) }, (config) => {
    const options = completeOptions(config.options);
    return options.ok ? ok({ options: options.value }) : options;
  }),
  validateValue: (value, config, path) => checkOption(config.options, value, path),
  valueKind: () => 'text',
  filterOps: () => EQUALITY_OPS,
  filterOpsOfAnyConfig: EQUALITY_OPS,
  filterOperands: (config) => optionOperand(config.options),
  valueSchema: (config) => optionValueSchema(config.options),
};

export const multiSelectHandler: FieldTypeHandler<MultiSelectConfig> = {
  parseConfig: configParser(
    { options: required(optionsRule), maxSelected: optional(integerRule({ min: 1, max: MAX_OPTIONS })) },
    (config) => {
      const options = completeOptions(config.options);
      if (!options.ok) return options;
      return ok({
        options: options.value,
        ...(config.maxSelected === undefined ? {} : { maxSelected: config.maxSelected }),
      });
    },
  ),
  validateValue(value, config, path) {
    if (!Array.isArray(value)) return fail(path, 'invalid_type', 'Must be an array of option values.');
    // More entries than options means duplicates or unknown values; refuse before looking at each one.
    const limit = Math.min(config.maxSelected ?? Infinity, config.options.length);
    if (value.length > limit) return fail(path, 'too_long', `Must contain at most ${limit} values.`);
    const selected = new Set<string>();
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const itemPath = `${path}[${index}]`;
      if (typeof item !== 'string') return fail(itemPath, 'invalid_type', 'Must be an option value (a string).');
      if (!isOptionValue(config.options, item)) {
        return fail(itemPath, 'invalid_option', 'Must be one of the configured options.');
      }
      if (selected.has(item)) return fail(itemPath, 'invalid_format', 'Values must not repeat.');
      selected.add(item);
    }
    return ok([...selected]);
  },
  isEmpty: isEmptyList,
  valueKind: () => 'list',
  filterOps: () => SET_OPS,
  filterOpsOfAnyConfig: SET_OPS,
  filterOperands: (config) => optionOperand(config.options),
  valueSchema: (config) => ({
    type: 'array',
    items: optionValueSchema(config.options),
    uniqueItems: true,
    maxItems: Math.min(config.maxSelected ?? Infinity, config.options.length),
  }),
};
