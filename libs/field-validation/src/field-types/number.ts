import { finiteNumberRule, integerRule } from '../config/config-rules';
import { optional } from '../config/config-schema';
import { fail, ok } from '../core/result';
import type { OperandValidator } from '../filter/operand-rules';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser } from './field-type-handler';
import { ORDERED_OPS } from '../filter/op-sets';

export type NumberConfig = { min?: number; max?: number; precision?: number };

/** More decimal places than doubles can faithfully carry would make the check meaningless. */
export const MAX_PRECISION = 15;

const numberConfigSchema = {
  min: optional(finiteNumberRule),
  max: optional(finiteNumberRule),
  precision: optional(integerRule({ min: 0, max: MAX_PRECISION })),
};

/** Whether `value` has at most `decimals` digits after the decimal point. */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
  if (decimals === 0) return Number.isInteger(value);
  // toFixed is exactly specified by ECMAScript, so browsers and Node agree on the outcome.
  return Math.abs(value) >= 1e21 || Number(value.toFixed(decimals)) === value;
}

/** Text where a number belongs (a JSON string, or what a person typed that reads as no number). */
export const NUMBER_NOT_TEXT = 'Must be a number, not text: use digits and a decimal point, e.g. 1200.50.';

/** A filter operand on numbers: any finite number, whatever the field's bounds and decimal places. */
export const numberOperand: OperandValidator = (value, path) =>
  typeof value === 'number' && Number.isFinite(value)
    ? ok(Object.is(value, -0) ? 0 : value)
    : fail(path, 'invalid_type', typeof value === 'string' ? NUMBER_NOT_TEXT : 'Must be a finite number.');

export const numberHandler: FieldTypeHandler<NumberConfig> = {
  parseConfig: configParser(numberConfigSchema, (config) =>
    config.min !== undefined && config.max !== undefined && config.min > config.max
      ? fail('config.max', 'out_of_range', 'config.max must be greater than or equal to config.min.')
      : ok(config),
  ),
  validateValue(value, config, path) {
    if (typeof value === 'string') return fail(path, 'invalid_type', NUMBER_NOT_TEXT);
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return fail(path, 'invalid_type', 'Must be a finite number.');
    }
    if (config.min !== undefined && value < config.min) {
      return fail(path, 'out_of_range', `Must be at least ${config.min}.`);
    }
    if (config.max !== undefined && value > config.max) {
      return fail(path, 'out_of_range', `Must be at most ${config.max}.`);
    }
    if (config.precision !== undefined && !hasAtMostDecimals(value, config.precision)) {
      return fail(
        path,
        'invalid_format',
        config.precision === 0 ? 'Must be a whole number.' : `Must have at most ${config.precision} decimal places.`,
      );
    }
    // JSON cannot tell -0 from 0; normalising keeps re-validation stable.
    return ok(Object.is(value, -0) ? 0 : value);
  },
  // Decimal places beyond zero are not a JSON Schema rule (multipleOf 0.01 misjudges doubles), so they stay a description.
  valueKind: () => 'number',
  filterOps: () => ORDERED_OPS,
  filterOpsOfAnyConfig: ORDERED_OPS,
  filterOperands: () => ({ operand: numberOperand }),
  valueSchema: ({ min, max, precision }) => ({
    type: precision === 0 ? 'integer' : 'number',
    ...(min === undefined ? {} : { minimum: min }),
    ...(max === undefined ? {} : { maximum: max }),
    ...(precision === undefined || precision === 0 ? {} : { description: `At most ${precision} decimal places` }),
  }),
};
