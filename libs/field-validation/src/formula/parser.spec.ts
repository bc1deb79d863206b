import fc from 'fast-check';
import type { FieldError } from '../core/result';
import type { FormulaAst } from './ast';
import { formulaDependencies } from './dependencies';
import { FORMULA_LIMITS } from './limits';
import { parseFormula } from './parser';

function parse(expression: string): FormulaAst {
  const result = parseFormula(expression);
  if (!result.ok) throw new Error(`Expected ${expression} to parse: ${result.errors[0]?.message}`);
  return result.value;
}

function parseError(expression: string): FieldError {
  const result = parseFormula(expression);
  if (result.ok) throw new Error(`Expected ${expression} to be rejected`);
  expect(result.errors).toHaveLength(1);
  expect(result.errors[0]!.field).toBe('config.expression');
  return result.errors[0]!;
}

const num = (value: number): FormulaAst => ({ kind: 'number', value });

describe('parseFormula', () => {
  it('parses literals and field references', () => {
    expect(parse('42')).toEqual(num(42));
    expect(parse('3.25e2')).toEqual(num(325));
    expect(parse('"say \\"hi\\"\\n\\u00e9"')).toEqual({ kind: 'text', value: 'say "hi"\né' });
    expect(parse('true')).toEqual({ kind: 'boolean', value: true });
    expect(parse('FALSE')).toEqual({ kind: 'boolean', value: false });
    expect(parse('{unit_price}')).toEqual({ kind: 'field', key: 'unit_price' });
  });

  it('binds * / % tighter than + -, which bind tighter than &, which binds tighter than comparisons', () => {
    expect(parse('1 + 2 * 3')).toEqual({
      kind: 'binary',
      operator: '+',
      left: num(1),
      right: { kind: 'binary', operator: '*', left: num(2), right: num(3) },
    });
    expect(parse('1 & 2 + 3')).toEqual({
      kind: 'binary',
      operator: '&',
      left: num(1),
      right: { kind: 'binary', operator: '+', left: num(2), right: num(3) },
    });
    expect(parse('"a" & "b" = "ab"')).toEqual({
      kind: 'binary',
      operator: '=',
      left: { kind: 'binary', operator: '&', left: { kind: 'text', value: 'a' }, right: { kind: 'text', value: 'b' } },
      right: { kind: 'text', value: 'ab' },
    });
  });

  it('is left-associative and honours parentheses', () => {
    expect(parse('10 - 4 - 3')).toEqual({
      kind: 'binary',
      operator: '-',
      left: { kind: 'binary', operator: '-', left: num(10), right: num(4) },
      right: num(3),
    });
    expect(parse('10 - (4 - 3)')).toEqual({
      kind: 'binary',
      operator: '-',
      left: num(10),
      right: { kind: 'binary', operator: '-', left: num(4), right: num(3) },
    });
  });

  it('binds unary minus tightest and folds negative literals', () => {
    expect(parse('-2 * 3')).toEqual({ kind: 'binary', operator: '*', left: num(-2), right: num(3) });
    expect(parse('--2')).toEqual(num(2));
    expect(parse('-{x} * 2')).toEqual({
      kind: 'binary',
      operator: '*',
      left: { kind: 'negate', operand: { kind: 'field', key: 'x' } },
      right: num(2),
    });
  });

  it('accepts every comparison operator, with <> as an alias of !=', () => {
    for (const operator of ['=', '!=', '<', '<=', '>', '>=']) {
      expect(parse(`1 ${operator} 2`)).toMatchObject({ kind: 'binary', operator });
    }
    expect(parse('1 <> 2')).toMatchObject({ kind: 'binary', operator: '!=' });
  });

  it('parses function calls case-insensitively', () => {
    expect(parse('round({price} * 1.2, 2)')).toEqual({
      kind: 'call',
      name: 'ROUND',
      args: [{ kind: 'binary', operator: '*', left: { kind: 'field', key: 'price' }, right: num(1.2) }, num(2)],
    });
    expect(parse('If(TRUE, "a", "b")')).toMatchObject({ kind: 'call', name: 'IF' });
  });

  it.each([
    ['an unknown function', 'FOO(1)', /Unknown function FOO/],
    ['a bare name', 'price + 1', /field references are written \{field_key\}/],
    ['too few arguments', 'IF(TRUE, 1)', /IF takes exactly 3 arguments but was given 2/],
    ['too many arguments', 'ROUND(1, 2, 3)', /ROUND takes 1 to 2 arguments/],
    ['no arguments', 'NOT()', /NOT takes exactly 1 argument but was given 0/],
    ['no arguments to a variadic function', 'AND()', /AND takes at least 1 argument/],
    ['an unexpected character', '1 $ 2', /Unexpected character "\$" at character 3/],
    ['an unterminated string', '"abc', /Unterminated string/],
    ['an invalid escape', '"\\q"', /Invalid escape/],
    ['an invalid field key', '{Unit Price}', /Invalid field reference/],
    ['an unclosed field reference', '{price', /Unclosed field reference/],
    ['a malformed number', '1.', /Malformed number/],
    ['a number glued to a name', '2x', /Malformed number/],
    ['an overflowing number', '1e999', /Number too large/],
    ['a missing closing parenthesis', '(1 + 2', /Expected "\)"/],
    ['a trailing operator', '1 +', /ends unexpectedly/],
    ['a dangling token', '1 2', /Unexpected number at character 3/],
    ['chained comparisons', '1 < 2 < 3', /cannot be chained/],
    ['single quotes', "'text'", /Unexpected character/],
    ['a missing comma', 'MIN(1 2)', /Expected "\)"/],
    ['a NUL escape, whose result could not be stored', 'CONCAT({title}, "a\\u0000")', /string starting at character 17 holds U\+0000 or a lone surrogate/],
    ['a raw NUL in a string', '"a\u0000"', /holds U\+0000 or a lone surrogate/],
    ['a lone surrogate escape', '"\\ud800"', /holds U\+0000 or a lone surrogate/],
    ['a surrogate pair split across strings', '"\\ud83d" & "\\ude00"', /string starting at character 1 holds/],
  ])('rejects %s', (_description, expression, message) => {
    const error = parseError(expression);
    expect(error.code).toBe('invalid_format');
    expect(error.message).toMatch(message);
  });

  it('accepts an escaped surrogate pair', () => {
    expect(parse('"\\ud83d\\ude00"')).toEqual({ kind: 'text', value: '😀' });
  });

  it('rejects empty and non-string formulas', () => {
    expect(parseError('   ').code).toBe('invalid_format');
    expect(parseFormula(42 as unknown as string)).toMatchObject({ ok: false, errors: [{ code: 'invalid_type' }] });
  });

  it(`limits formulas to ${FORMULA_LIMITS.maxExpressionLength} characters`, () => {
    const longest = `1${' + 1'.repeat(249)}`.padEnd(FORMULA_LIMITS.maxExpressionLength, ' ');
    expect(longest).toHaveLength(FORMULA_LIMITS.maxExpressionLength);
    expect(parseFormula(longest).ok).toBe(true);
    expect(parseError(`${longest} `).code).toBe('too_long');
  });

  it(`limits nesting to ${FORMULA_LIMITS.maxNestingDepth} levels`, () => {
    const nested = (depth: number) => `${'('.repeat(depth)}1${')'.repeat(depth)}`;
    expect(parse(nested(FORMULA_LIMITS.maxNestingDepth))).toEqual(num(1));
    expect(parseError(nested(FORMULA_LIMITS.maxNestingDepth + 1)).message).toMatch(/nested too deeply/);
    expect(parseError(`${'ABS('.repeat(51)}1${')'.repeat(51)}`).message).toMatch(/nested too deeply/);
    expect(parseError(`${'-'.repeat(60)}1`).message).toMatch(/nested too deeply/);
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.stringMatching(/^[-+*/%&=<>!(){}",a-zA-Z0-9 ._]{0,60}$/)), (input) => {
        const result = parseFormula(input as string);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formulaDependencies', () => {
  it('lists each referenced field once, in order of appearance', () => {
    expect(formulaDependencies(parse('IF({b} > 0, {a} & {b}, CONCAT({c}, {a}))'))).toEqual(['b', 'a', 'c']);
    expect(formulaDependencies(parse('-{x} + 1'))).toEqual(['x']);
    expect(formulaDependencies(parse('1 + 2'))).toEqual([]);
  });
});
