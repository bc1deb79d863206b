import type { FieldType } from '../core/field-types';
import type { JsonSchema } from '../core/json-schema';
import type { Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';
import type { FilterOp } from '../filter/op-sets';
import type { OperandRules } from '../filter/operand-rules';
import { findUnstorableText } from '../values/storable-value';
import { attachmentsHandler, fileHandler } from './file';
import { booleanHandler } from './boolean';
import { dateHandler, dateTimeHandler } from './date';
import { emailHandler } from './email';
import type { FieldTypeHandler, ValueKind } from './field-type-handler';
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
  /**
   * "No value": null (and undefined), plus `""` for free-text types and `[]` for list types. An
   * empty string or array given to any other type is a value of the wrong type.
   */
  isEmpty(value: unknown): boolean;
  /** Validates a value that is not empty; errors are reported at `path`. */
  validateValue(value: unknown, path: string): Result<unknown>;
  /** The JSON Schema of a value that is not empty. */
  readonly valueSchema: JsonSchema;
  /** Computed by the server, never written by clients. */
  readonly computed: boolean;
  /** How a filter condition on the field checks its operands (its type's handler says). */
  filterOperands(): OperandRules;
}

type FieldCompiler = (config: unknown, type: FieldType) => Result<CompiledField>;

const looksEmpty = (value: unknown): boolean => value === '' || (Array.isArray(value) && value.length === 0);

/**
 * Hides each handler's configuration type behind a closure, so all types fit in one table. Rules
 * every type shares live here, so no handler can forget them: the emptiness rule, and that a value
 * PostgreSQL could not store exactly is refused.
 */
function compiler<C extends Record<string, unknown>>(handler: FieldTypeHandler<C>): FieldCompiler {
  return (rawConfig, type) => {
    const parsed = handler.parseConfig(rawConfig);
    if (!parsed.ok) return parsed;
    const config = parsed.value;
    const isEmpty = (value: unknown) => value === null || value === undefined || (handler.isEmpty?.(value, config) ?? false);
    return ok({
      config,
      valueSchema: handler.valueSchema(config),
      computed: handler.computed === true,
      isEmpty,
      filterOperands: () => handler.filterOperands(config),
      validateValue(value, path) {
        if (looksEmpty(value) && !isEmpty(value)) {
          const form = value === '' ? 'An empty string' : 'An empty array';
          return fail(path, 'invalid_type', `${form} is not a ${type} value; send null to clear the field.`);
        }
        const checked = handler.validateValue(value, config, path);
        if (!checked.ok) return checked;
        const unstorable = findUnstorableText(checked.value, path);
        return unstorable ? failWith([unstorable]) : checked;
      },
    });
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

/** What a handler declares about stored fields of its type, whatever its configuration's type. */
type Declarations = Pick<FieldTypeHandler<Record<string, unknown>>, 'valueKind' | 'filterOps' | 'filterOpsOfAnyConfig'>;

const DECLARATIONS: Readonly<Record<FieldType, Declarations>> = {
  TEXT: textHandler,
  LONG_TEXT: longTextHandler,
  RICH_TEXT: richTextHandler,
  NUMBER: numberHandler,
  BOOLEAN: booleanHandler,
  DATE: dateHandler,
  DATETIME: dateTimeHandler,
  SELECT: selectHandler,
  MULTI_SELECT: multiSelectHandler,
  RELATION: relationHandler,
  URL: urlHandler,
  EMAIL: emailHandler,
  FORMULA: formulaHandler,
  FILE: fileHandler,
  ATTACHMENTS: attachmentsHandler,
};

type StoredField = { readonly type: FieldType; readonly config: Readonly<Record<string, unknown>> };

/** What a field's values are to compare, sort, index or edit: its type's handler says (`ValueKind`). */
export function valueKind(field: StoredField): ValueKind {
  return DECLARATIONS[field.type].valueKind(field.config);
}

/** The filter operators a field allows: its type's handler says, for its configuration. */
export function filterOps(field: StoredField): readonly FilterOp[] {
  return Object.hasOwn(DECLARATIONS, field.type) ? DECLARATIONS[field.type].filterOps(field.config) : [];
}

/** The filter operators a field type may allow, whatever the configuration. */
export function filterOpsOfType(type: FieldType): readonly FilterOp[] {
  return Object.hasOwn(DECLARATIONS, type) ? DECLARATIONS[type].filterOpsOfAnyConfig : [];
}

export function compileField(type: FieldType, config: unknown): Result<CompiledField> {
  return FIELD_COMPILERS[type](config, type);
}
