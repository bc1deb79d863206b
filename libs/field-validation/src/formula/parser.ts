import type { Result } from '../core/result';
import { fail, ok } from '../core/result';
import type { BinaryOperator, ComparisonOperator, FormulaAst } from './ast';
import { describeArity, FORMULA_FUNCTIONS, lookupFunction } from './functions';
import { FORMULA_LIMITS } from './limits';
import { FormulaSyntaxError } from './syntax-error';
import type { Token } from './tokenizer';
import { tokenize } from './tokenizer';

/** Where formula errors are reported: formulas live in a FORMULA field's `config.expression`. */
export const EXPRESSION_PATH = 'config.expression';

const COMPARISON_OPERATORS: ReadonlySet<BinaryOperator> = new Set<ComparisonOperator>([
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
]);

/**
 * Parses a formula. Grammar, loosest binding first:
 *
 *   comparison     := concatenation [ ("=" | "!=" | "<" | "<=" | ">" | ">=") concatenation ]
 *   concatenation  := additive { "&" additive }
 *   additive       := multiplicative { ("+" | "-") multiplicative }
 *   multiplicative := unary { ("*" | "/" | "%") unary }
 *   unary          := "-" unary | primary
 *   primary        := number | string | TRUE | FALSE | {field} | NAME "(" [ comparison { "," comparison } ] ")"
 *                   | "(" comparison ")"
 *
 * Comparisons do not chain (`1 < 2 < 3` is an error), which catches a classic mistake early.
 */
export function parseFormula(expression: string): Result<FormulaAst> {
  if (typeof expression !== 'string') return fail(EXPRESSION_PATH, 'invalid_type', 'The formula must be a string.');
  if (expression.length > FORMULA_LIMITS.maxExpressionLength) {
    return fail(EXPRESSION_PATH, 'too_long', `Formulas may be at most ${FORMULA_LIMITS.maxExpressionLength} characters.`);
  }
  if (expression.trim() === '') return fail(EXPRESSION_PATH, 'invalid_format', 'The formula is empty.');
  try {
    return ok(new FormulaParser(tokenize(expression)).parseFormula());
  } catch (error) {
    if (error instanceof FormulaSyntaxError) return fail(EXPRESSION_PATH, 'invalid_format', error.message);
    throw error;
  }
}

class FormulaParser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseFormula(): FormulaAst {
    const ast = this.comparison();
    const trailing = this.peek();
    if (trailing.kind !== 'end') throw this.unexpected(trailing);
    return ast;
  }

  private comparison(): FormulaAst {
    const left = this.concatenation();
    const operator = this.matchOperator(COMPARISON_OPERATORS);
    if (!operator) return left;
    const right = this.concatenation();
    const next = this.peek();
    if (next.kind === 'operator' && COMPARISON_OPERATORS.has(next.operator)) {
      throw new FormulaSyntaxError(
        `Comparisons cannot be chained (character ${next.position + 1}); combine them with AND().`,
        next.position,
      );
    }
    return { kind: 'binary', operator, left, right };
  }

  private concatenation(): FormulaAst {
    return this.leftAssociative(new Set(['&']), () => this.additive());
  }

  private additive(): FormulaAst {
    return this.leftAssociative(new Set(['+', '-']), () => this.multiplicative());
  }

  private multiplicative(): FormulaAst {
    return this.leftAssociative(new Set(['*', '/', '%']), () => this.unary());
  }

  private leftAssociative(operators: ReadonlySet<BinaryOperator>, operand: () => FormulaAst): FormulaAst {
    let left = operand();
    for (let operator = this.matchOperator(operators); operator; operator = this.matchOperator(operators)) {
      left = { kind: 'binary', operator, left, right: operand() };
    }
    return left;
  }

  private unary(): FormulaAst {
    const token = this.peek();
    if (token.kind === 'operator' && token.operator === '-') {
      this.index++;
      const operand = this.nested(token, () => this.unary());
      // Fold `-3` into a literal so constants stay constants.
      return operand.kind === 'number' ? { kind: 'number', value: -operand.value } : { kind: 'negate', operand };
    }
    return this.primary();
  }

  private primary(): FormulaAst {
    const token = this.advance();
    switch (token.kind) {
      case 'number':
        return { kind: 'number', value: token.value };
      case 'text':
        return { kind: 'text', value: token.value };
      case 'field':
        return { kind: 'field', key: token.key };
      case 'identifier':
        return this.identifier(token.name, token.position);
      case 'punctuation':
        if (token.symbol === '(') {
          const inner = this.nested(token, () => this.comparison());
          this.expect(')');
          return inner;
        }
        throw this.unexpected(token);
      default:
        throw this.unexpected(token);
    }
  }

  private identifier(name: string, position: number): FormulaAst {
    const next = this.peek();
    const isCall = next.kind === 'punctuation' && next.symbol === '(';
    if (!isCall && (name === 'TRUE' || name === 'FALSE')) return { kind: 'boolean', value: name === 'TRUE' };
    if (!isCall) {
      throw new FormulaSyntaxError(
        `Unknown name at character ${position + 1}; field references are written {field_key}.`,
        position,
      );
    }
    const functionName = lookupFunction(name);
    if (!functionName) throw new FormulaSyntaxError(`Unknown function ${name} at character ${position + 1}.`, position);

    this.index++; // the "("
    const args = this.nested(next, () => this.argumentList());
    const { minArgs, maxArgs } = FORMULA_FUNCTIONS[functionName];
    if (args.length < minArgs || args.length > maxArgs) {
      throw new FormulaSyntaxError(
        `${functionName} takes ${describeArity(functionName)} but was given ${args.length} (character ${position + 1}).`,
        position,
      );
    }
    return { kind: 'call', name: functionName, args };
  }

  /** Arguments up to and including the closing parenthesis. */
  private argumentList(): FormulaAst[] {
    const args: FormulaAst[] = [];
    if (this.match(')')) return args;
    do {
      if (args.length === FORMULA_LIMITS.maxFunctionArguments) {
        const token = this.peek();
        throw new FormulaSyntaxError(
          `Too many arguments (at most ${FORMULA_LIMITS.maxFunctionArguments}) at character ${token.position + 1}.`,
          token.position,
        );
      }
      args.push(this.comparison());
    } while (this.match(','));
    this.expect(')');
    return args;
  }

  /** Runs `parse` one nesting level deeper, refusing to go beyond the limit. */
  private nested<T>(opening: Token, parse: () => T): T {
    if (this.depth >= FORMULA_LIMITS.maxNestingDepth) {
      throw new FormulaSyntaxError(
        `The formula is nested too deeply (more than ${FORMULA_LIMITS.maxNestingDepth} levels) at character ${opening.position + 1}.`,
        opening.position,
      );
    }
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private matchOperator(operators: ReadonlySet<BinaryOperator>): BinaryOperator | undefined {
    const token = this.peek();
    if (token.kind === 'operator' && operators.has(token.operator)) {
      this.index++;
      return token.operator;
    }
    return undefined;
  }

  private match(symbol: '(' | ')' | ','): boolean {
    const token = this.peek();
    if (token.kind === 'punctuation' && token.symbol === symbol) {
      this.index++;
      return true;
    }
    return false;
  }

  private expect(symbol: ')'): void {
    if (!this.match(symbol)) {
      const token = this.peek();
      throw new FormulaSyntaxError(`Expected "${symbol}" at character ${token.position + 1}.`, token.position);
    }
  }

  private peek(): Token {
    // The token list always ends with an `end` token, which is never consumed past.
    return this.tokens[Math.min(this.index, this.tokens.length - 1)];
  }

  private advance(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private unexpected(token: Token): FormulaSyntaxError {
    return token.kind === 'end'
      ? new FormulaSyntaxError('The formula ends unexpectedly.', token.position)
      : new FormulaSyntaxError(`Unexpected ${describeToken(token)} at character ${token.position + 1}.`, token.position);
  }
}

function describeToken(token: Token): string {
  switch (token.kind) {
    case 'number':
      return 'number';
    case 'text':
      return 'string';
    case 'field':
      return `field reference {${token.key}}`;
    case 'identifier':
      return `name ${token.name}`;
    case 'operator':
      return `"${token.operator}"`;
    case 'punctuation':
      return `"${token.symbol}"`;
    case 'end':
      return 'end of formula';
  }
}
