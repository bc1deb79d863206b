import { fail, ok } from '../core/result';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser } from './field-type-handler';

export type EmptyConfig = Record<string, never>;

/** For types without settings: any configuration key is unknown. */
export const parseEmptyConfig = configParser({});

export const booleanHandler: FieldTypeHandler<EmptyConfig> = {
  parseConfig: parseEmptyConfig,
  validateValue: (value, _config, path) =>
    typeof value === 'boolean' ? ok(value) : fail(path, 'invalid_type', 'Must be true or false.'),
  valueKind: () => 'boolean',
  valueSchema: () => ({ type: 'boolean' }),
};
