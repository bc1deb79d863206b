import { enumRule, stringRule } from '../config/config-rules';
import { required } from '../config/config-schema';
import type { JsonSchema } from '../core/json-schema';
import { fail, ok } from '../core/result';
import { textRules, type OperandRules } from '../filter/operand-rules';
import { FORMULA_RESULT_TYPES } from '../formula/formula-types';
import type { FormulaResultType } from '../formula/formula-types';
import { FORMULA_LIMITS } from '../formula/limits';
import { parseFormula } from '../formula/parser';
import { isCalendarDateString } from '../values/calendar-date';
import { exceedsLength } from '../values/text';
import type { FieldTypeHandler, ValueKind } from './field-type-handler';
import { configParser } from './field-type-handler';
import { booleanOperand } from './boolean';
import { dateOperand } from './date';
import { numberOperand } from './number';
import { BOOLEAN_OPS, FILTER_OPS, type FilterOp, ORDERED_OPS, PRESENCE_OPS, TEXT_OPS } from '../filter/op-sets';

export type FormulaConfig = { expression: string; resultType: FormulaResultType };

/** A formula's values are of its result type's kind; a stored result type we do not know compares as nothing. */
const FORMULA_VALUE_KINDS: Readonly<Record<string, ValueKind>> = { NUMBER: 'number', TEXT: 'text', BOOLEAN: 'boolean', DATE: 'date' };

/** A formula filters like its result type. */
const FORMULA_OPERANDS: Readonly<Record<FormulaResultType, OperandRules>> = {
  NUMBER: { operand: numberOperand },
  TEXT: textRules(FORMULA_LIMITS.maxTextResultLength),
  BOOLEAN: { operand: booleanOperand },
  DATE: { operand: dateOperand },
};

const FORMULA_RESULT_SCHEMAS: Readonly<Record<FormulaResultType, JsonSchema>> = {
  NUMBER: { type: 'number' },
  TEXT: { type: 'string', maxLength: FORMULA_LIMITS.maxTextResultLength },
  BOOLEAN: { type: 'boolean' },
  DATE: { type: 'string', format: 'date' },
};

const expressionRule = (value: unknown, path: string) => {
  const text = stringRule({ maxLength: FORMULA_LIMITS.maxExpressionLength })(value, path);
  if (!text.ok) return text;
  const parsed = parseFormula(text.value);
  return parsed.ok ? ok(text.value) : parsed;
};

/**
 * FORMULA values are computed, never written; clients get `read_only` from validateRecordData.
 * validateValue still checks a value against the result type, e.g. for stored values after a change.
 */
/** A formula filters like the type of its result. */
const FORMULA_OPS: Readonly<Record<string, readonly FilterOp[]>> = { NUMBER: ORDERED_OPS, DATE: ORDERED_OPS, TEXT: TEXT_OPS, BOOLEAN: BOOLEAN_OPS };

export const formulaHandler: FieldTypeHandler<FormulaConfig> = {
  parseConfig: configParser({
    expression: required(expressionRule),
    resultType: required(enumRule(FORMULA_RESULT_TYPES)),
  }),
  validateValue(value, config, path) {
    switch (config.resultType) {
      case 'NUMBER':
        return typeof value === 'number' && Number.isFinite(value)
          ? ok(Object.is(value, -0) ? 0 : value)
          : fail(path, 'invalid_type', 'Must be a finite number.');
      case 'BOOLEAN':
        return typeof value === 'boolean' ? ok(value) : fail(path, 'invalid_type', 'Must be true or false.');
      case 'TEXT':
        if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a string.');
        return exceedsLength(value, FORMULA_LIMITS.maxTextResultLength)
          ? fail(path, 'too_long', `Must be at most ${FORMULA_LIMITS.maxTextResultLength} characters.`)
          : ok(value);
      case 'DATE':
        if (typeof value !== 'string') return fail(path, 'invalid_type', 'Must be a date string (YYYY-MM-DD).');
        return isCalendarDateString(value)
          ? ok(value)
          : fail(path, 'invalid_format', 'Must be a date formatted YYYY-MM-DD.');
    }
  },
  valueKind: (config) => FORMULA_VALUE_KINDS[String(config['resultType'])] ?? 'object',
  filterOps: (config) => FORMULA_OPS[String(config['resultType'])] ?? PRESENCE_OPS,
  filterOpsOfAnyConfig: FILTER_OPS,
  filterOperands: ({ resultType }) => FORMULA_OPERANDS[resultType],
  valueSchema: ({ resultType, expression }) => ({ ...FORMULA_RESULT_SCHEMAS[resultType], description: `Computed: ${expression}` }),
  computed: true,
};
