import type { FieldType } from '../core/field-types';
import type { Result } from '../core/result';
import { attachmentsHandler, fileHandler } from './file';
import { booleanHandler } from './boolean';
import { dateHandler, dateTimeHandler } from './date';
import { emailHandler } from './email';
import type { FieldTypeHandler } from './field-type-handler';
import { formulaHandler } from './formula';
import { numberHandler } from './number';
import { relationHandler } from './relation';
import { richTextHandler } from './rich-text';
import { multiSelectHandler, selectHandler } from './select';
import { longTextHandler, textHandler } from './text';
import { urlHandler } from './url';

/** A field whose configuration has been checked, ready to validate any number of values. */
export interface CompiledField {
  /** The normalised configuration, defaults filled in. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Validates a non-empty value; errors are reported at `path`. */
  validateValue(value: unknown, path: string): Result<unknown>;
}

type FieldCompiler = (config: unknown) => Result<CompiledField>;

/** Hides each handler's configuration type behind a closure, so all types fit in one table. */
function compiler<C extends Record<string, unknown>>(handler: FieldTypeHandler<C>): FieldCompiler {
  return (rawConfig) => {
    const config = handler.parseConfig(rawConfig);
    if (!config.ok) return config;
    return {
      ok: true,
      value: { config: config.value, validateValue: (value, path) => handler.validateValue(value, config.value, path) },
    };
  };
}

const FIELD_COMPILERS: Readonly<Record<FieldType, FieldCompiler>> = {
  TEXT: compiler(textHandler),
  LONG_TEXT: compiler(longTextHandler),
  RICH_TEXT: compiler(richTextHandler),
  NUMBER: compiler(numberHandler),
  BOOLEAN: compiler(booleanHandler),
  DATE: compiler(dateHandler),
  DATETIME: compiler(dateTimeHandler),
  SELECT: compiler(selectHandler),
  MULTI_SELECT: compiler(multiSelectHandler),
  RELATION: compiler(relationHandler),
  URL: compiler(urlHandler),
  EMAIL: compiler(emailHandler),
  FORMULA: compiler(formulaHandler),
  FILE: compiler(fileHandler),
  ATTACHMENTS: compiler(attachmentsHandler),
};

export function compileField(type: FieldType, config: unknown): Result<CompiledField> {
  return FIELD_COMPILERS[type](config);
}
