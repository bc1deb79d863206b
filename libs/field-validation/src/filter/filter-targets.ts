import type { FieldDefinition, ModelFields } from '../core/field-definition';
import { TITLE_FIELD_KEY } from '../core/field-definition';
import type { Result } from '../core/result';
import { fail, mapResult, ok } from '../core/result';
import { booleanHandler } from '../field-types/boolean';
import { dateHandler, dateTimeHandler } from '../field-types/date';
import { emailHandler } from '../field-types/email';
import { formulaHandler } from '../field-types/formula';
import { NUMBER_NOT_TEXT } from '../field-types/number';
import { multiSelectHandler, selectHandler } from '../field-types/select';
import type { SelectOption } from '../field-types/select';
import { validateRecordId } from '../field-types/relation';
import { richTextHandler } from '../field-types/rich-text';
import { longTextHandler, TEXT_MAX_LENGTH, textHandler } from '../field-types/text';
import { validateHttpUrl } from '../field-types/url';
import { compileDefinition } from '../field-types/validate-field';
import { FORMULA_LIMITS } from '../formula/limits';
import { MAX_EMAIL_LENGTH } from '../values/email-address';
import { MAX_URL_LENGTH } from '../values/http-url';
import { exceedsLength } from '../values/text';
import type { FilterOp } from './filter-ops';
import { opsForField } from './filter-ops';
import { isSystemFilterField, SYSTEM_FILTER_FIELDS } from './system-fields';

/** Validates and normalises one operand value (never null or undefined). */
export type OperandValidator = (value: unknown, path: string) => Result<unknown>;

/** How the operands of a condition on one field are checked. */
export interface OperandRules {
  /** For eq, neq, lt, lte, gt, gte, and each value of in / notIn; also `contains` on multi-valued fields. */
  readonly operand: OperandValidator;
  /** For contains / startsWith on text: a fragment, so formats such as URL are not enforced. */
  readonly fragment?: OperandValidator;
}

/** What a filter condition may do with one field. */
export interface FilterTarget extends OperandRules {
  readonly ops: readonly FilterOp[];
}

const noOperand: OperandValidator = (_value, path) => fail(path, 'invalid_format', 'This field takes no operand.');

function textFragment(maxLength: number): OperandValidator {
  return (value, path) => {
    if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a string.');
    if (value === '') return fail(path, 'invalid_format', 'Must not be empty; use isEmpty to find empty values.');
    return exceedsLength(value, maxLength)
      ? fail(path, 'too_long', `Must be at most ${maxLength} characters.`)
      : ok(value);
  };
}

const numberOperand: OperandValidator = (value, path) =>
  typeof value === 'number' && Number.isFinite(value)
    ? ok(Object.is(value, -0) ? 0 : value)
    : fail(path, 'invalid_type', typeof value === 'string' ? NUMBER_NOT_TEXT : 'Must be a finite number.');

const dateOperand: OperandValidator = (value, path) => dateHandler.validateValue(value, {}, path);
const dateTimeOperand: OperandValidator = (value, path) => dateTimeHandler.validateValue(value, {}, path);
const booleanOperand: OperandValidator = (value, path) => booleanHandler.validateValue(value, {}, path);
const recordIdOperand: OperandValidator = (value, path) => validateRecordId(value, path);

function optionOperand(options: SelectOption[]): OperandValidator {
  return (value, path) => selectHandler.validateValue(value, { options }, path);
}

/** Text filters accept any fragment up to the field's maximum length; exact values may need a format. */
function textRules(maxLength: number, exactValue?: OperandValidator): OperandRules {
  const fragment = textFragment(maxLength);
  return { operand: exactValue ?? fragment, fragment };
}

function formulaOperandRules(field: FieldDefinition): Result<OperandRules> {
  return mapResult(formulaHandler.parseConfig(field.config), (config): OperandRules => {
    switch (config.resultType) {
      case 'NUMBER':
        return { operand: numberOperand };
      case 'DATE':
        return { operand: dateOperand };
      case 'BOOLEAN':
        return { operand: booleanOperand };
      case 'TEXT':
        return textRules(FORMULA_LIMITS.maxTextResultLength);
    }
  });
}

/** Operand rules for a model field, derived from its (validated) configuration. */
function modelFieldOperandRules(field: FieldDefinition): Result<OperandRules> {
  const compiled = compileDefinition(field);
  if (!compiled.ok) return compiled;
  switch (field.type) {
    case 'TEXT':
      return mapResult(textHandler.parseConfig(field.config), (config) => textRules(config.maxLength));
    case 'LONG_TEXT':
      return mapResult(longTextHandler.parseConfig(field.config), (config) => textRules(config.maxLength));
    case 'RICH_TEXT':
      return mapResult(richTextHandler.parseConfig(field.config), (config) => textRules(config.maxLength));
    case 'URL':
      return ok(textRules(MAX_URL_LENGTH, validateHttpUrl));
    case 'EMAIL':
      return ok(textRules(MAX_EMAIL_LENGTH, (value, path) => emailHandler.validateValue(value, {}, path)));
    case 'NUMBER':
      return ok({ operand: numberOperand });
    case 'DATE':
      return ok({ operand: dateOperand });
    case 'DATETIME':
      return ok({ operand: dateTimeOperand });
    case 'BOOLEAN':
      return ok({ operand: booleanOperand });
    case 'SELECT':
      return mapResult(selectHandler.parseConfig(field.config), (config) => ({
        operand: optionOperand(config.options),
      }));
    case 'MULTI_SELECT':
      return mapResult(multiSelectHandler.parseConfig(field.config), (config) => ({
        operand: optionOperand(config.options),
      }));
    case 'RELATION':
      return ok({ operand: recordIdOperand });
    case 'FORMULA':
      return formulaOperandRules(field);
    case 'FILE':
    case 'ATTACHMENTS':
      return ok({ operand: noOperand });
  }
}

function titleMaxLength(model: ModelFields): number {
  const title = model.visible.get(TITLE_FIELD_KEY);
  const config = title ? textHandler.parseConfig(title.config) : undefined;
  return config?.ok ? config.value.maxLength : TEXT_MAX_LENGTH;
}

/**
 * The filter target for a key: a system column or a visible model field. undefined when the key
 * is unknown (archived fields are unknown: they are invisible).
 */
export function resolveFilterTarget(key: string, model: ModelFields): Result<FilterTarget> | undefined {
  if (isSystemFilterField(key)) {
    const { type, ops } = SYSTEM_FILTER_FIELDS[key];
    switch (type) {
      case 'DATETIME':
        return ok({ ops, operand: dateTimeOperand });
      case 'UUID':
        return ok({ ops, operand: recordIdOperand });
      case 'TEXT':
        return ok({ ...textRules(titleMaxLength(model)), ops });
    }
  }
  const field = model.visible.get(key);
  if (!field) return undefined;
  const target = modelFieldOperandRules(field);
  return target.ok ? ok({ ...target.value, ops: opsForField(field) }) : target;
}
