import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';
import { checkFormulaFields, computeFormulas } from './formula-fields';

const field = (key: string, type: FieldType, config: Record<string, unknown> = {}, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  key,
  type,
  config,
  required: false,
  ...extra,
});
const formula = (key: string, expression: string, resultType = 'NUMBER', extra: Partial<FieldDefinition> = {}) =>
  field(key, 'FORMULA', { expression, resultType }, extra);

const BASE_FIELDS: FieldDefinition[] = [
  field('title', 'TEXT', {}, { required: true }),
  field('price', 'NUMBER'),
  field('qty', 'NUMBER'),
  field('name', 'TEXT'),
  field('due', 'DATE'),
  field('done', 'BOOLEAN'),
  field('tags', 'MULTI_SELECT', { options: [{ value: 'a' }] }),
  field('old', 'NUMBER', {}, { archivedAt: '2024-01-01T00:00:00.000Z' }),
];

const codesAndMessages = (fields: FieldDefinition[]) =>
  checkFormulaFields(fields).map((error) => ({ field: error.field, code: error.code, message: error.message }));

describe('checkFormulaFields', () => {
  it('accepts well-typed formulas, including formulas reading formulas', () => {
    expect(
      checkFormulaFields([
        ...BASE_FIELDS,
        formula('total', '{price} * {qty}'),
        formula('label', 'UPPER({name}) & ": " & ROUND({total}, 2)', 'TEXT'),
        formula('late', 'AND(NOT({done}), {due} < {due} + 1)', 'BOOLEAN'),
        formula('next_due', 'IF({done}, {due} + 7, {due})', 'DATE'),
        formula('age', '{due} - {due}', 'NUMBER'),
        formula('archived_formula', '{nope}', 'NUMBER', { archivedAt: new Date() }),
      ]),
    ).toEqual([]);
  });

  it('reports references to unknown and archived fields', () => {
    expect(codesAndMessages([...BASE_FIELDS, formula('f', '{price} + {ghost} + {old}')])).toEqual([
      { field: 'config.expression', code: 'unknown_field', message: 'Formula field "f": {ghost} is not a field of this model.' },
      { field: 'config.expression', code: 'unknown_field', message: 'Formula field "f": {old} refers to an archived field.' },
    ]);
  });

  it('reports fields formulas cannot read', () => {
    expect(codesAndMessages([...BASE_FIELDS, formula('f', 'LEN({tags})')])).toEqual([
      { field: 'config.expression', code: 'invalid_type', message: expect.stringContaining('MULTI_SELECT') },
    ]);
  });

  it.each([
    ['arithmetic on TEXT', '{name} * 2', 'NUMBER'],
    ['adding TEXT and NUMBER', '{name} + 1', 'NUMBER'],
    ['comparing NUMBER with TEXT', '{price} = {name}', 'BOOLEAN'],
    ['ordering booleans', '{done} < TRUE', 'BOOLEAN'],
    ['IF with mixed branch types', 'IF({done}, 1, "one")', 'NUMBER'],
    ['IF with a non-boolean condition', 'IF({price}, 1, 2)', 'NUMBER'],
    ['AND over numbers', 'AND({price}, TRUE)', 'BOOLEAN'],
    ['UPPER over a number', 'UPPER({price})', 'TEXT'],
    ['LEN over a date', 'LEN({due})', 'NUMBER'],
    ['MIN over mixed types', 'MIN({due}, 1)', 'NUMBER'],
    ['negating text', '-{name}', 'NUMBER'],
    ['adding two dates', '{due} + {due}', 'DATE'],
  ])('reports a type error for %s', (_description, expression, resultType) => {
    expect(codesAndMessages([...BASE_FIELDS, formula('f', expression, resultType)])).toEqual([
      { field: 'config.expression', code: 'invalid_type', message: expect.stringMatching(/^Formula field "f": /) },
    ]);
  });

  it('reports a result type that does not match the expression', () => {
    expect(codesAndMessages([...BASE_FIELDS, formula('f', '{name} & "!"', 'NUMBER')])).toEqual([
      {
        field: 'config.expression',
        code: 'invalid_type',
        message: 'Formula field "f": The expression computes TEXT but the result type is NUMBER.',
      },
    ]);
  });

  it('reports cycles for every formula involved', () => {
    const errors = checkFormulaFields([...BASE_FIELDS, formula('a', '{b} + 1'), formula('b', '{a} + 1'), formula('c', '{c}'), formula('d', '{a}')]);
    expect(errors.map((error) => [error.code, error.message])).toEqual([
      ['invalid_format', 'Formula field "a": Circular reference: formulas a, b refer to each other in a cycle.'],
      ['invalid_format', 'Formula field "b": Circular reference: formulas a, b refer to each other in a cycle.'],
      ['invalid_format', 'Formula field "c": Circular reference: it refers to itself.'],
    ]);
  });

  it('reports invalid configurations and syntax errors', () => {
    expect(codesAndMessages([...BASE_FIELDS, formula('f', '{price} +'), field('g', 'FORMULA', { expression: '1' })])).toEqual([
      { field: 'config.expression', code: 'invalid_format', message: 'Formula field "f": The formula ends unexpectedly.' },
      { field: 'config.resultType', code: 'required', message: 'Formula field "g": config.resultType is required.' },
    ]);
  });
});

describe('computeFormulas', () => {
  it('computes formulas in dependency order, whatever order they are defined in', () => {
    const fields = [
      formula('grand_total', '{total} + {shipping}'),
      formula('total', '{price} * {qty}'),
      formula('shipping', 'IF({total} > 100, 0, 5)'),
      ...BASE_FIELDS,
    ];
    expect(computeFormulas(fields, { title: 'Order', price: 30, qty: 2 })).toEqual({
      title: 'Order',
      price: 30,
      qty: 2,
      total: 60,
      shipping: 5,
      grand_total: 65,
    });
    expect(computeFormulas(fields, { title: 'Big order', price: 60, qty: 2 })).toMatchObject({ total: 120, shipping: 0, grand_total: 120 });
  });

  it('yields null for undefined results, cycles, invalid formulas and archived references', () => {
    const fields = [
      ...BASE_FIELDS,
      formula('ratio', '{price} / {qty}'),
      formula('a', '{b}'),
      formula('b', '{a}'),
      formula('reads_cycle', '{a} + 1'),
      formula('broken', '{price} +'),
      formula('uses_archived', '{old} + 1'),
      formula('wrong_type', '{name}', 'NUMBER'),
    ];
    expect(computeFormulas(fields, { title: 't', price: 1, qty: 0, old: 5, name: 'x' })).toEqual({
      title: 't',
      price: 1,
      qty: 0,
      old: 5,
      name: 'x',
      ratio: null,
      a: null,
      b: null,
      reads_cycle: null,
      broken: null,
      uses_archived: null,
      wrong_type: null,
    });
  });

  it('overwrites stale formula values and leaves the input untouched', () => {
    const fields = [...BASE_FIELDS, formula('total', '{price} * {qty}')];
    const data = Object.freeze({ title: 't', price: 2, qty: 3, total: 999 });
    expect(computeFormulas(fields, data)).toEqual({ title: 't', price: 2, qty: 3, total: 6 });
    expect(data.total).toBe(999);
  });

  it('returns DATE results as YYYY-MM-DD strings and enforces the result type', () => {
    const fields = [...BASE_FIELDS, formula('next', '{due} + 7', 'DATE'), formula('soon', '{due} - 7 < {due}', 'BOOLEAN')];
    expect(computeFormulas(fields, { due: '2024-12-28' })).toMatchObject({ next: '2025-01-04', soon: true });
  });
});
