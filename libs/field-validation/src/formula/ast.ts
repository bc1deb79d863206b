import type { FormulaFunctionName } from './functions';

export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%';
export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type BinaryOperator = ArithmeticOperator | ComparisonOperator | '&';

export interface NumberLiteral {
  readonly kind: 'number';
  readonly value: number;
}
export interface TextLiteral {
  readonly kind: 'text';
  readonly value: string;
}
export interface BooleanLiteral {
  readonly kind: 'boolean';
  readonly value: boolean;
}
export interface FieldReference {
  readonly kind: 'field';
  readonly key: string;
}
export interface Negation {
  readonly kind: 'negate';
  readonly operand: FormulaAst;
}
export interface BinaryOperation {
  readonly kind: 'binary';
  readonly operator: BinaryOperator;
  readonly left: FormulaAst;
  readonly right: FormulaAst;
}
export interface FunctionCall {
  readonly kind: 'call';
  /** Always upper case, whatever the case in the source. */
  readonly name: FormulaFunctionName;
  readonly args: readonly FormulaAst[];
}

/** A parsed formula. Plain JSON-compatible data, so it can be cached or sent to a browser. */
export type FormulaAst =
  | NumberLiteral
  | TextLiteral
  | BooleanLiteral
  | FieldReference
  | Negation
  | BinaryOperation
  | FunctionCall;

/** What a formula evaluates to. DATE results are `YYYY-MM-DD` strings; null means "no result". */
export type FormulaValue = number | string | boolean | null;
