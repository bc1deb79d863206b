import type { FieldErrorCode } from '../core/result';
import type { FormulaAst, FunctionCall } from './ast';
import type { FormulaResultType } from './formula-types';

/** Resolves a field reference to its formula type, or explains why it cannot be used. */
export type FieldTypeResolver = (
  key: string,
) => { ok: true; type: FormulaResultType } | { ok: false; code: FieldErrorCode; message: string };

export type TypeCheck = { ok: true; type: FormulaResultType } | { ok: false; code: FieldErrorCode; message: string };

/** Internal control flow only; inferFormulaType turns it into a TypeCheck. */
class FormulaTypeError extends Error {
  constructor(
    readonly code: FieldErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Infers the static type of a formula, so that mistakes such as `{name} * 2` (name being TEXT)
 * are caught when the formula is defined rather than silently producing null on every record.
 */
export function inferFormulaType(ast: FormulaAst, resolveField: FieldTypeResolver): TypeCheck {
  try {
    return { ok: true, type: infer(ast, resolveField) };
  } catch (error) {
    if (error instanceof FormulaTypeError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

function mismatch(message: string): FormulaTypeError {
  return new FormulaTypeError('invalid_type', message);
}

function infer(node: FormulaAst, resolveField: FieldTypeResolver): FormulaResultType {
  switch (node.kind) {
    case 'number':
      return 'NUMBER';
    case 'text':
      return 'TEXT';
    case 'boolean':
      return 'BOOLEAN';
    case 'field': {
      const resolved = resolveField(node.key);
      if (!resolved.ok) throw new FormulaTypeError(resolved.code, resolved.message);
      return resolved.type;
    }
    case 'negate': {
      const operand = infer(node.operand, resolveField);
      if (operand !== 'NUMBER') throw mismatch(`Unary minus needs a NUMBER, not ${operand}.`);
      return 'NUMBER';
    }
    case 'binary': {
      const left = infer(node.left, resolveField);
      const right = infer(node.right, resolveField);
      return inferBinary(node.operator, left, right);
    }
    case 'call':
      return inferCall(node, resolveField);
  }
}

function inferBinary(operator: string, left: FormulaResultType, right: FormulaResultType): FormulaResultType {
  const operands = `${left} ${operator} ${right}`;
  switch (operator) {
    case '&':
      return 'TEXT';
    case '+':
      if (left === 'NUMBER' && right === 'NUMBER') return 'NUMBER';
      if ((left === 'DATE' && right === 'NUMBER') || (left === 'NUMBER' && right === 'DATE')) return 'DATE';
      throw mismatch(`Cannot add ${operands}; use & to join text.`);
    case '-':
      if (left === 'NUMBER' && right === 'NUMBER') return 'NUMBER';
      if (left === 'DATE' && right === 'NUMBER') return 'DATE';
      if (left === 'DATE' && right === 'DATE') return 'NUMBER';
      throw mismatch(`Cannot subtract ${operands}.`);
    case '*':
    case '/':
    case '%':
      if (left === 'NUMBER' && right === 'NUMBER') return 'NUMBER';
      throw mismatch(`Operator ${operator} needs NUMBER operands, not ${operands}.`);
    case '=':
    case '!=':
      if (left === right) return 'BOOLEAN';
      throw mismatch(`Cannot compare ${left} with ${right}.`);
    default:
      if (left === right && left !== 'BOOLEAN') return 'BOOLEAN';
      throw mismatch(`Cannot order ${operands}; only NUMBER, TEXT and DATE values can be ordered.`);
  }
}

function inferCall(node: FunctionCall, resolveField: FieldTypeResolver): FormulaResultType {
  const args = node.args.map((arg) => infer(arg, resolveField));
  const expectAll = (type: FormulaResultType, types: readonly FormulaResultType[] = args): void => {
    const index = types.findIndex((argType) => argType !== type);
    if (index !== -1) throw mismatch(`${node.name} needs ${type} arguments; argument ${index + 1} is ${types[index]}.`);
  };

  switch (node.name) {
    case 'AND':
    case 'OR':
    case 'NOT':
      expectAll('BOOLEAN');
      return 'BOOLEAN';
    case 'IF': {
      const [condition, whenTrue, whenFalse] = args;
      expectAll('BOOLEAN', [condition ?? 'BOOLEAN']);
      if (whenTrue !== whenFalse) {
        throw mismatch(`IF branches must have the same type, not ${whenTrue} and ${whenFalse}.`);
      }
      return whenTrue ?? 'TEXT';
    }
    case 'ROUND':
    case 'ABS':
      expectAll('NUMBER');
      return 'NUMBER';
    case 'MIN':
    case 'MAX': {
      const first = args[0] ?? 'NUMBER';
      if (first !== 'NUMBER' && first !== 'DATE') {
        throw mismatch(`${node.name} works on NUMBER or DATE values, not ${first}.`);
      }
      expectAll(first);
      return first;
    }
    case 'CONCAT':
      return 'TEXT';
    case 'UPPER':
    case 'LOWER':
      expectAll('TEXT');
      return 'TEXT';
    case 'LEN':
      expectAll('TEXT');
      return 'NUMBER';
  }
}
