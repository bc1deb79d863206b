import { fail, ok } from '../core/result';
import type { OperandValidator } from '../filter/operand-rules';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser } from './field-type-handler';
import { BOOLEAN_OPS } from '../filter/op-sets';

export type EmptyConfig = Record<string, never>;

/** For types without settings: any configuration key is unknown. */
export const parseEmptyConfig = configParser({});

export const booleanOperand: OperandValidator = (value, path) =>
  typeof value === 'boolean' ? ok(value) : fail(path, 'invalid_type', 'Must be true or false.');

export const booleanHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue: (value, _config, path) => booleanOperand(value, path),
  valueKind: () => 'boolean',
  filterOps: () => BOOLEAN_OPS,
  filterOpsOfAnyConfig: BOOLEAN_OPS,
  filterOperands: () => ({ operand: booleanOperand }),
  valueSchema: () => ({ type: 'boolean' }),
};
