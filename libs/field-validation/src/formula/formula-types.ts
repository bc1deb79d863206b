import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';

/** The value types formulas compute with (and may return). */
export const FORMULA_RESULT_TYPES = ['NUMBER', 'TEXT', 'BOOLEAN', 'DATE'] as const;
export type FormulaResultType = (typeof FORMULA_RESULT_TYPES)[number];

export function isFormulaResultType(value: unknown): value is FormulaResultType {
  return typeof value === 'string' && (FORMULA_RESULT_TYPES as readonly string[]).includes(value);
}

/**
 * How each field type looks from inside a formula. DATETIME values are normalised ISO strings in
 * UTC, so as TEXT they still compare chronologically. Multi-valued and file fields have no scalar
 * value and cannot be referenced.
 */
const FORMULA_TYPE_OF_FIELD_TYPE: Readonly<Record<Exclude<FieldType, 'FORMULA'>, FormulaResultType | undefined>> = {
  TEXT: 'TEXT',
  LONG_TEXT: 'TEXT',
  RICH_TEXT: 'TEXT',
  URL: 'TEXT',
  EMAIL: 'TEXT',
  SELECT: 'TEXT',
  DATETIME: 'TEXT',
  NUMBER: 'NUMBER',
  BOOLEAN: 'BOOLEAN',
  DATE: 'DATE',
  MULTI_SELECT: undefined,
  RELATION: undefined,
  FILE: undefined,
  ATTACHMENTS: undefined,
};

/** The formula type of a referenced field, or undefined when formulas cannot read it. */
export function formulaTypeOfField(field: FieldDefinition): FormulaResultType | undefined {
  if (field.type === 'FORMULA') {
    const resultType = field.config['resultType'];
    return isFormulaResultType(resultType) ? resultType : undefined;
  }
  return FORMULA_TYPE_OF_FIELD_TYPE[field.type];
}
