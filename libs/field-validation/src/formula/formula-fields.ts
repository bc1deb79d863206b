import type { FieldDefinition } from '../core/field-definition';
import { indexModelFields } from '../core/field-definition';
import { isPlainObject } from '../core/plain-object';
import type { FieldError } from '../core/result';
import { formulaHandler } from '../field-types/formula';
import { isCalendarDateString } from '../values/calendar-date';
import type { FormulaConfig } from '../field-types/formula';
import type { FormulaAst, FormulaValue } from './ast';
import { formulaDependencies } from './dependencies';
import { orderFormulas } from './dependency-graph';
import { evaluateFormula } from './evaluator';
import type { FormulaResultType } from './formula-types';
import { formulaTypeOfField } from './formula-types';
import { EXPRESSION_PATH, parseFormula } from './parser';
import { inferFormulaType } from './type-checker';
import type { FieldTypeResolver } from './type-checker';

interface ParsedFormulaField {
  readonly key: string;
  readonly config: FormulaConfig;
  readonly ast: FormulaAst;
  readonly dependencies: readonly string[];
}

type FormulaParse = { ok: true; formula: ParsedFormulaField } | { ok: false; errors: FieldError[] };

function parseFormulaField(field: FieldDefinition): FormulaParse {
  const config = formulaHandler.parseConfig(field.config);
  if (!config.ok) return config;
  const ast = parseFormula(config.value.expression);
  if (!ast.ok) return ast;
  return {
    ok: true,
    formula: { key: field.key, config: config.value, ast: ast.value, dependencies: formulaDependencies(ast.value) },
  };
}

const dependencyMap = (formulas: readonly ParsedFormulaField[]): Map<string, readonly string[]> =>
  new Map(formulas.map((formula) => [formula.key, formula.dependencies]));

/**
 * Definition-time check of every (non-archived) formula of a model: syntax, references to unknown
 * or archived fields (`unknown_field`), fields formulas cannot read and type errors including a
 * mismatch with `resultType` (`invalid_type`), and reference cycles (`invalid_format`).
 * Every error is reported at `config.expression` (or the configuration key at fault), with the
 * formula field's key named in the message.
 */
export function checkFormulaFields(fields: FieldDefinition[]): FieldError[] {
  const model = indexModelFields(fields);
  const errors: FieldError[] = [];
  const formulas: ParsedFormulaField[] = [];
  const report = (key: string, error: FieldError): void => {
    errors.push({ ...error, message: `Formula field "${key}": ${error.message}` });
  };

  const resolveField: FieldTypeResolver = (key) => {
    const referenced = model.visible.get(key);
    if (!referenced) {
      const message = model.archived.has(key)
        ? `{${key}} refers to an archived field.`
        : `{${key}} is not a field of this model.`;
      return { ok: false, code: 'unknown_field', message };
    }
    const type = formulaTypeOfField(referenced);
    if (type === undefined) {
      const message = `{${key}} is a ${referenced.type} field, which formulas cannot read.`;
      return { ok: false, code: 'invalid_type', message };
    }
    return { ok: true, type };
  };

  for (const field of model.visible.values()) {
    if (field.type !== 'FORMULA') continue;
    const parsed = parseFormulaField(field);
    if (!parsed.ok) {
      parsed.errors.forEach((error) => report(field.key, error));
      continue;
    }
    const { formula } = parsed;
    formulas.push(formula);

    const unresolved = formula.dependencies
      .map(resolveField)
      .flatMap((resolution) => (resolution.ok ? [] : [resolution]));
    for (const { code, message } of unresolved) report(field.key, { field: EXPRESSION_PATH, code, message });
    if (unresolved.length > 0) continue;

    const inferred = inferFormulaType(formula.ast, resolveField);
    if (!inferred.ok) {
      report(field.key, { field: EXPRESSION_PATH, code: inferred.code, message: inferred.message });
    } else if (inferred.type !== formula.config.resultType) {
      report(field.key, {
        field: EXPRESSION_PATH,
        code: 'invalid_type',
        message: `The expression computes ${inferred.type} but the result type is ${formula.config.resultType}.`,
      });
    }
  }

  for (const cycle of orderFormulas(dependencyMap(formulas)).cycles) {
    const description =
      cycle.length === 1 ? 'it refers to itself.' : `formulas ${cycle.join(', ')} refer to each other in a cycle.`;
    for (const key of cycle) {
      report(key, { field: EXPRESSION_PATH, code: 'invalid_format', message: `Circular reference: ${description}` });
    }
  }
  return errors;
}

/**
 * Recomputes every non-archived FORMULA field of a full record and returns a new object (the input
 * is not modified). Formulas run in dependency order, so a formula may read another formula.
 *
 * A formula's value is null when its result is undefined (see evaluateFormula: empty fields,
 * division by zero, runtime type problems), when its configuration is invalid, when it is part of
 * a reference cycle, or when the result does not fit its `resultType`. Archived and unknown fields
 * read as empty.
 */
export function computeFormulas(fields: FieldDefinition[], data: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = isPlainObject(data) ? { ...data } : {};
  const model = indexModelFields(fields);

  // Formulas only see visible, stored fields; a null-prototype object keeps `constructor` & co. out.
  const scope: Record<string, unknown> = Object.create(null);
  const formulas: ParsedFormulaField[] = [];
  for (const field of model.visible.values()) {
    if (field.type !== 'FORMULA') {
      if (Object.hasOwn(record, field.key)) scope[field.key] = record[field.key];
      continue;
    }
    // Every formula starts as null, so cyclic or invalid ones (and readers of them) see "empty".
    record[field.key] = null;
    const parsed = parseFormulaField(field);
    if (parsed.ok) formulas.push(parsed.formula);
  }

  const byKey = new Map(formulas.map((formula) => [formula.key, formula]));
  for (const key of orderFormulas(dependencyMap(formulas)).order) {
    const formula = byKey.get(key);
    if (!formula) continue;
    const value = fitResultType(evaluateFormula(formula.ast, scope), formula.config.resultType);
    scope[key] = value;
    record[key] = value;
  }
  return record;
}

function fitResultType(value: FormulaValue, resultType: FormulaResultType): FormulaValue {
  switch (resultType) {
    case 'NUMBER':
      return typeof value === 'number' ? value : null;
    case 'TEXT':
      return typeof value === 'string' ? value : null;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : null;
    case 'DATE':
      return typeof value === 'string' && isCalendarDateString(value) ? value : null;
  }
}
