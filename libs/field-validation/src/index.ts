// Field types, values and record validation shared by the server and the browser.
export { FIELD_TYPES, isFieldType } from './core/field-types';
export type { FieldType } from './core/field-types';
export { FIELD_KEY_PATTERN, TITLE_FIELD, TITLE_FIELD_KEY } from './core/field-definition';
export type { FieldDefinition } from './core/field-definition';
export { FIELD_ERROR_CODES } from './core/result';
export type { FieldError, FieldErrorCode, Result } from './core/result';

export { validateFieldConfig, validateFieldValue } from './field-types/validate-field';
export { valueKind } from './field-types/registry';
export type { ValueKind } from './field-types/field-type-handler';
export type { SelectOption } from './field-types/select';
export type { FileReference } from './field-types/file';
export { REMINDER_LIMITS } from './field-types/date';
export type { DateTimeConfig } from './field-types/date';
export { compileRecordValidator, validateRecordData, RECORD_ROOT_PATH } from './record/validate-record-data';
export type { RecordValidator, ValidateRecordOptions, WriteMode } from './record/validate-record-data';
export { recordDataSchema } from './record/record-data-schema';
export type { JsonSchema } from './core/json-schema';
export { isEmptyFieldValue } from './record/empty-value';
export { unstorableText } from './values/text';
export type { UnstorableText } from './values/text';

// Formulas
export { parseFormula } from './formula/parser';
export { formulaDependencies } from './formula/dependencies';
export { evaluateFormula } from './formula/evaluator';
export { checkFormulaFields, computeFormulas } from './formula/formula-fields';
export { FORMULA_FUNCTIONS } from './formula/functions';
export type { FormulaFunctionName } from './formula/functions';
export { FORMULA_LIMITS } from './formula/limits';
export { FORMULA_RESULT_TYPES } from './formula/formula-types';
export type { FormulaResultType } from './formula/formula-types';
export type { BinaryOperator, FormulaAst, FormulaValue } from './formula/ast';

// Filters
export { FILTER_OPS, opsForField, opsForFieldType } from './filter/filter-ops';
export type { FilterOp } from './filter/filter-ops';
export { FILTER_LIMITS, FILTER_MAX_LIST_VALUES } from './filter/filter-tree';
export type { FilterNode } from './filter/filter-tree';
export { SYSTEM_FILTER_FIELDS } from './filter/system-fields';
export type { SystemFilterField } from './filter/system-fields';
export { validateFilterTree, FILTER_ROOT_PATH } from './filter/validate-filter-tree';
