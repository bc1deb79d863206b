import fc from 'fast-check';
import type { FormulaValue } from './ast';
import { evaluateFormula } from './evaluator';
import { FORMULA_LIMITS } from './limits';
import { parseFormula } from './parser';

function run(expression: string, record: Record<string, unknown> = {}): FormulaValue {
  const ast = parseFormula(expression);
  if (!ast.ok) throw new Error(`Expected ${expression} to parse: ${ast.errors[0]?.message}`);
  return evaluateFormula(ast.value, record);
}

describe('evaluateFormula', () => {
  describe('operators', () => {
    it.each<[string, FormulaValue]>([
      ['1 + 2 * 3', 7],
      ['(1 + 2) * 3', 9],
      ['10 - 4 - 3', 3],
      ['2 * 3 % 4', 2],
      ['7 / 2', 3.5],
      ['-2 * -3', 6],
      ['2 - -3', 5],
      ['1 + 2 & 3', '33'],
      ['"a" & "b" = "ab"', true],
      ['1 + 1 = 2', true],
      ['3 != 3', false],
      ['2 <> 3', true],
      ['"apple" < "banana"', true],
      ['"B" < "a"', true],
      ['2 <= 2', true],
      ['3 > 4', false],
      ['4 >= 4', true],
      ['TRUE = FALSE', false],
      ['"x" & TRUE & 1.5', 'xTRUE1.5'],
    ])('%s = %j', (expression, expected) => {
      expect(run(expression)).toEqual(expected);
    });

    it('reads field values', () => {
      expect(run('{price} * {qty}', { price: 2.5, qty: 4 })).toBe(10);
      expect(run('{first} & " " & {last}', { first: 'Ada', last: 'Lovelace' })).toBe('Ada Lovelace');
      expect(run('{done} = TRUE', { done: true })).toBe(true);
    });

    it('adds and subtracts days on dates and counts days between dates', () => {
      expect(run('{due} + 1', { due: '2024-02-28' })).toBe('2024-02-29');
      expect(run('1 + {due}', { due: '2023-12-31' })).toBe('2024-01-01');
      expect(run('{due} - 30', { due: '2024-03-01' })).toBe('2024-01-31');
      expect(run('{due} + 1.9', { due: '2024-01-01' })).toBe('2024-01-02');
      expect(run('{end} - {start}', { start: '2024-01-01', end: '2024-12-31' })).toBe(365);
      expect(run('{due} + 1', { due: '9999-12-31' })).toBeNull();
      expect(run('{due} < {other}', { due: '2023-12-31', other: '2024-01-01' })).toBe(true);
    });
  });

  describe('functions', () => {
    it.each<[string, FormulaValue]>([
      ['AND(TRUE, TRUE, TRUE)', true],
      ['AND(TRUE, FALSE)', false],
      ['OR(FALSE, FALSE)', false],
      ['OR(FALSE, TRUE)', true],
      ['NOT(TRUE)', false],
      ['IF(1 < 2, "yes", "no")', 'yes'],
      ['IF(1 > 2, "yes", "no")', 'no'],
      ['ROUND(2.5)', 3],
      ['ROUND(-2.5)', -3],
      ['ROUND(2.4)', 2],
      ['ROUND(1.005, 2)', 1.01],
      ['ROUND(3.14159, 3)', 3.142],
      ['ROUND(1234.5, -2)', 1200],
      ['ROUND(1e21, 2)', 1e21],
      ['ROUND(1, 1.5)', null],
      ['ABS(-4.5)', 4.5],
      ['MIN(3, 1, 2)', 1],
      ['MAX(3, 1, 2)', 3],
      ['CONCAT("a", 1, TRUE)', 'a1TRUE'],
      ['UPPER("straße")', 'STRASSE'],
      ['LOWER("ÀBC")', 'àbc'],
      ['LEN("héllo")', 5],
      ['LEN("👍👍")', 2],
      ['round(2.6)', 3],
    ])('%s = %j', (expression, expected) => {
      expect(run(expression)).toEqual(expected);
    });

    it('MIN and MAX work on dates', () => {
      const record = { a: '2024-05-01', b: '2023-01-31' };
      expect(run('MIN({a}, {b})', record)).toBe('2023-01-31');
      expect(run('MAX({a}, {b})', record)).toBe('2024-05-01');
    });

    it('IF only evaluates the branch it takes', () => {
      expect(run('IF(TRUE, 1, 1 / 0)')).toBe(1);
      expect(run('IF({flag}, 1, 2)', {})).toBeNull();
    });
  });

  describe('undefined results are null', () => {
    it('on division or remainder by zero', () => {
      expect(run('1 / 0')).toBeNull();
      expect(run('0 / 0')).toBeNull();
      expect(run('5 % 0')).toBeNull();
      expect(run('{a} / {b}', { a: 1, b: 0 })).toBeNull();
    });

    it('on overflow', () => {
      expect(run('1e308 * 10')).toBeNull();
    });

    it('when a referenced field is empty or missing', () => {
      expect(run('{missing} + 1')).toBeNull();
      expect(run('{qty} * 2', { qty: null })).toBeNull();
      expect(run('LEN({name})', { name: '' })).toBeNull();
      expect(run('{a} = {b}', { a: 1 })).toBeNull();
      expect(run('UPPER({tags})', { tags: ['a'] })).toBeNull();
    });

    it('but text concatenation treats empty as ""', () => {
      expect(run('{first} & " " & {last}', { first: 'Ada' })).toBe('Ada ');
      expect(run('CONCAT({a}, "-", {b})', { b: 'x' })).toBe('-x');
    });

    it('and AND / OR use three-valued logic', () => {
      expect(run('AND(FALSE, {unknown})')).toBe(false);
      expect(run('AND(TRUE, {unknown})')).toBeNull();
      expect(run('OR(TRUE, {unknown})')).toBe(true);
      expect(run('OR(FALSE, {unknown})')).toBeNull();
      expect(run('NOT({unknown})')).toBeNull();
    });

    it('when runtime types do not fit (e.g. after a field changed type)', () => {
      expect(run('{n} * 2', { n: 'twelve' })).toBeNull();
      expect(run('{n} + 1', { n: 'not a date' })).toBeNull();
      expect(run('{a} < {b}', { a: 1, b: 'x' })).toBeNull();
      expect(run('{a} = {b}', { a: 1, b: '1' })).toBeNull();
      expect(run('AND({a}, TRUE)', { a: 1 })).toBeNull();
      expect(run('MIN({a}, 1)', { a: 'x' })).toBeNull();
      expect(run('-{a}', { a: 'x' })).toBeNull();
      expect(run('IF({a}, 1, 2)', { a: 'yes' })).toBeNull();
    });

    it(`when text grows beyond ${FORMULA_LIMITS.maxTextResultLength} characters`, () => {
      const half = 'x'.repeat(FORMULA_LIMITS.maxTextResultLength / 2);
      expect(run('{a} & {a}', { a: half })).toHaveLength(FORMULA_LIMITS.maxTextResultLength);
      expect(run('{a} & {a} & "!"', { a: half })).toBeNull();
      expect(run('CONCAT({a}, {a}, {a})', { a: half })).toBeNull();
    });
  });

  it('ignores inherited properties of the record', () => {
    expect(run('{constructor} & "x"', {})).toBe('x');
    expect(run('LEN({to_string})', {})).toBeNull();
  });

  it('never throws and only returns formula values, whatever the record holds', () => {
    const expression = parseFormula('IF({a} > {b}, {a} & {b}, CONCAT({a}, ROUND({b} / {a}, {b}), LEN({a}), MIN({a}, {b}), {a} - {b}))');
    if (!expression.ok) throw new Error('fixture must parse');
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (a, b) => {
        const result = evaluateFormula(expression.value, { a, b });
        expect(result === null || ['number', 'string', 'boolean'].includes(typeof result)).toBe(true);
        if (typeof result === 'number') expect(Number.isFinite(result)).toBe(true);
      }),
    );
  });
});
