import { isPlainObject } from '../core/plain-object';
import { daysFromCivil, formatEpochDay, parseCalendarDate } from '../values/calendar-date';
import { codePointLength } from '../values/text';
import type { BinaryOperator, FormulaAst, FormulaValue, FunctionCall } from './ast';
import { FORMULA_LIMITS } from './limits';

/**
 * Evaluates a parsed formula against a record. The evaluator is total: it never throws, and any
 * result that is not defined yields null. The rule, in full:
 *
 * - A reference to a missing or empty field (null, "" or absent), or to a value that is not a
 *   number, string or boolean (e.g. a MULTI_SELECT array), is null.
 * - null propagates: an operator or function with a null operand returns null, except
 *   - `&` and CONCAT, which treat null as "" (so `{first} & " " & {last}` works with blanks);
 *   - IF, which only evaluates the branch it takes (a null condition gives null);
 *   - AND / OR, which use three-valued logic: AND(FALSE, null) = FALSE, OR(TRUE, null) = TRUE.
 * - Division or remainder by zero, non-finite arithmetic results, operands of the wrong runtime
 *   type (possible when a field's type changed after the formula was written) and TEXT results
 *   longer than FORMULA_LIMITS.maxTextResultLength are null.
 *
 * Types at runtime: numbers are NUMBER, booleans are BOOLEAN and strings are TEXT; a string that is
 * a `YYYY-MM-DD` date also acts as a DATE in date arithmetic (date ± days -> date, date - date ->
 * days). Text comparison is by UTF-16 code unit, case-sensitive and locale-independent, so it is
 * identical everywhere and orders ISO dates chronologically. `&` renders numbers with JavaScript's
 * String() and booleans as TRUE / FALSE.
 */
export function evaluateFormula(ast: FormulaAst, record: Readonly<Record<string, unknown>>): FormulaValue {
  const fields = isPlainObject(record) ? record : {};
  return finalise(evaluate(ast, (key) => (Object.hasOwn(fields, key) ? fields[key] : undefined)));
}

type ReadField = (key: string) => unknown;

function finalise(value: FormulaValue): FormulaValue {
  if (typeof value === 'number') return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null;
  if (typeof value === 'string' && value.length > FORMULA_LIMITS.maxTextResultLength) return null;
  return value;
}

function evaluate(node: FormulaAst, readField: ReadField): FormulaValue {
  switch (node.kind) {
    case 'number':
    case 'text':
    case 'boolean':
      return node.value;
    case 'field':
      return toFormulaValue(readField(node.key));
    case 'negate': {
      const operand = evaluate(node.operand, readField);
      return typeof operand === 'number' ? -operand : null;
    }
    case 'binary':
      return finalise(binary(node.operator, evaluate(node.left, readField), evaluate(node.right, readField)));
    case 'call':
      return finalise(call(node, readField));
  }
}

function toFormulaValue(value: unknown): FormulaValue {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'boolean') return value;
  return null;
}

function binary(operator: BinaryOperator, left: FormulaValue, right: FormulaValue): FormulaValue {
  if (operator === '&') return concatenate([left, right]);
  if (left === null || right === null) return null;
  switch (operator) {
    case '+':
      return add(left, right);
    case '-':
      return subtract(left, right);
    case '*':
      return typeof left === 'number' && typeof right === 'number' ? left * right : null;
    case '/':
      return typeof left === 'number' && typeof right === 'number' && right !== 0 ? left / right : null;
    case '%':
      return typeof left === 'number' && typeof right === 'number' && right !== 0 ? left % right : null;
    case '=':
    case '!=': {
      if (typeof left !== typeof right) return null;
      return operator === '=' ? left === right : left !== right;
    }
    default:
      return compare(operator, left, right);
  }
}

function add(left: FormulaValue, right: FormulaValue): FormulaValue {
  if (typeof left === 'number' && typeof right === 'number') return left + right;
  if (typeof left === 'string' && typeof right === 'number') return shiftDate(left, right);
  if (typeof left === 'number' && typeof right === 'string') return shiftDate(right, left);
  return null;
}

function subtract(left: FormulaValue, right: FormulaValue): FormulaValue {
  if (typeof left === 'number' && typeof right === 'number') return left - right;
  if (typeof left === 'string' && typeof right === 'number') return shiftDate(left, -right);
  if (typeof left === 'string' && typeof right === 'string') {
    const [from, to] = [epochDay(right), epochDay(left)];
    return from === undefined || to === undefined ? null : to - from;
  }
  return null;
}

function epochDay(text: string): number | undefined {
  const date = parseCalendarDate(text);
  return date ? daysFromCivil(date) : undefined;
}

/** Moves a date by whole days (fractions are truncated); null outside years 0001-9999. */
function shiftDate(date: string, days: number): FormulaValue {
  const start = epochDay(date);
  if (start === undefined || !Number.isFinite(days)) return null;
  return formatEpochDay(start + Math.trunc(days)) ?? null;
}

function compare(operator: '<' | '<=' | '>' | '>=', left: FormulaValue, right: FormulaValue): FormulaValue {
  if (typeof left === 'number' && typeof right === 'number') return applyOrdering(operator, left, right);
  if (typeof left === 'string' && typeof right === 'string') return applyOrdering(operator, left, right);
  return null;
}

function applyOrdering<T extends number | string>(operator: '<' | '<=' | '>' | '>=', left: T, right: T): boolean {
  switch (operator) {
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
  }
}

function renderText(value: FormulaValue): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return String(value);
}

function concatenate(values: readonly FormulaValue[]): FormulaValue {
  let text = '';
  for (const value of values) {
    text += renderText(value);
    // Stop early so a formula cannot build a huge string before the final length check.
    if (text.length > FORMULA_LIMITS.maxTextResultLength) return null;
  }
  return text;
}

function call(node: FunctionCall, readField: ReadField): FormulaValue {
  const argument = (index: number): FormulaValue => {
    const arg = node.args[index];
    return arg === undefined ? null : evaluate(arg, readField);
  };
  const allArguments = (): FormulaValue[] => node.args.map((arg) => evaluate(arg, readField));

  switch (node.name) {
    case 'IF': {
      const condition = argument(0);
      if (typeof condition !== 'boolean') return null;
      return condition ? argument(1) : argument(2);
    }
    case 'AND':
      return threeValuedLogic(allArguments(), false);
    case 'OR':
      return threeValuedLogic(allArguments(), true);
    case 'NOT': {
      const value = argument(0);
      return typeof value === 'boolean' ? !value : null;
    }
    case 'ROUND': {
      const value = argument(0);
      const digits = node.args.length > 1 ? argument(1) : 0;
      return typeof value === 'number' && typeof digits === 'number' ? roundHalfAwayFromZero(value, digits) : null;
    }
    case 'ABS': {
      const value = argument(0);
      return typeof value === 'number' ? Math.abs(value) : null;
    }
    case 'MIN':
    case 'MAX':
      return extreme(allArguments(), node.name);
    case 'CONCAT':
      return concatenate(allArguments());
    case 'UPPER':
    case 'LOWER': {
      const value = argument(0);
      if (typeof value !== 'string') return null;
      return node.name === 'UPPER' ? value.toUpperCase() : value.toLowerCase();
    }
    case 'LEN': {
      const value = argument(0);
      return typeof value === 'string' ? codePointLength(value) : null;
    }
  }
}

/** Kleene logic: `decisive` (FALSE for AND, TRUE for OR) wins over null; wrong types give null. */
function threeValuedLogic(values: readonly FormulaValue[], decisive: boolean): FormulaValue {
  if (values.some((value) => value !== null && typeof value !== 'boolean')) return null;
  if (values.includes(decisive)) return decisive;
  return values.includes(null) ? null : !decisive;
}

/** MIN / MAX over all-number or all-date arguments. */
function extreme(values: readonly FormulaValue[], which: 'MIN' | 'MAX'): FormulaValue {
  if (values.every((value): value is number => typeof value === 'number')) {
    return which === 'MIN' ? Math.min(...values) : Math.max(...values);
  }
  if (values.every((value): value is string => typeof value === 'string' && parseCalendarDate(value) !== undefined)) {
    return [...values].sort()[which === 'MIN' ? 0 : values.length - 1] ?? null;
  }
  return null;
}

const MAX_ROUNDING_DIGITS = 15;

/**
 * Rounds half away from zero (ROUND(2.5) = 3, ROUND(-2.5) = -3) to `digits` decimals (negative
 * digits round to tens, hundreds...). Shifting through the decimal exponent instead of multiplying
 * avoids binary artefacts: ROUND(1.005, 2) is 1.01, not 1.
 */
function roundHalfAwayFromZero(value: number, digits: number): FormulaValue {
  if (!Number.isInteger(digits) || Math.abs(digits) > MAX_ROUNDING_DIGITS) return null;
  const shifted = Math.round(shiftExponent(Math.abs(value), digits));
  const rounded = Math.sign(value) * shiftExponent(shifted, -digits);
  return Number.isFinite(rounded) ? rounded : null;
}

function shiftExponent(value: number, by: number): number {
  const [mantissa, exponent = '0'] = String(value).split('e');
  return Number(`${mantissa}e${Number(exponent) + by}`);
}
