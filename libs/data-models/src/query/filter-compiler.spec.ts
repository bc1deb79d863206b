import type { FieldDefinition } from '@mrp/field-validation';
import { compileFilter } from './filter-compiler';
import { parseSort, keysetCondition } from './sort';
import { trustedSql } from './sql';

const fields = new Map<string, FieldDefinition>([
  ['note', { key: 'note', type: 'TEXT', config: { maxLength: 1000 }, required: false }],
  ['price', { key: 'price', type: 'NUMBER', config: {}, required: false }],
  ['tags', { key: 'tags', type: 'MULTI_SELECT', config: { options: [] }, required: false }],
]);

describe('compileFilter', () => {
  it('never puts a value into the SQL text: every value is a bind parameter', () => {
    const hostile = "x'); DROP TABLE records; --";
    const compiled = compileFilter(
      {
        or: [
          { field: 'note', op: 'eq', value: hostile },
          { field: 'note', op: 'contains', value: hostile },
          { field: 'price', op: 'in', value: [1, 2] },
          { field: 'tags', op: 'contains', value: hostile },
        ],
      },
      fields,
    );
    expect(compiled.text).not.toContain('DROP');
    expect(compiled.params).toEqual(expect.arrayContaining([hostile, `%x'); DROP TABLE records; --%`, [1, 2], JSON.stringify([hostile])]));
    expect(compiled.text.split('?').length - 1).toBe(compiled.params.length);
  });

  it('escapes LIKE wildcards so contains matches them literally', () => {
    expect(compileFilter({ field: 'note', op: 'contains', value: '50%_off\\' }, fields).params).toEqual(['%50\\%\\_off\\\\%']);
  });

  it('casts values to the type the expression indexes use', () => {
    expect(compileFilter({ field: 'price', op: 'gt', value: 5 }, fields).text).toBe(`((r.data->>'price')::numeric) > ?::numeric`);
    expect(compileFilter({ field: 'createdAt', op: 'lt', value: '2030-01-01T00:00:00.000Z' }, fields).text).toBe('r.created_at < ?::timestamptz');
  });

  it('refuses keys that did not go through validation', () => {
    expect(() => compileFilter({ field: "x'--", op: 'eq', value: 1 }, fields)).toThrow();
  });
});

describe('keysetCondition', () => {
  it('seeks with a row comparison when all columns run one way and cannot be NULL', () => {
    const plan = parseSort('-createdAt', fields);
    expect(keysetCondition(plan, ['2030-01-01T00:00:00.000000Z'], '01900000-0000-7000-8000-000000000000').text).toBe(
      '(r.created_at, r.id) < (?::timestamptz, ?::uuid)',
    );
  });

  it('expands to an OR chain when NULLs or mixed directions are possible', () => {
    const plan = parseSort('price,-createdAt', fields);
    const condition = keysetCondition(plan, ['3', '2030-01-01T00:00:00.000000Z'], '01900000-0000-7000-8000-000000000000');
    expect(condition.text).toContain('IS NULL');
    expect(condition.text).toContain(' OR ');
    expect(condition.params).toEqual(['3', '3', '2030-01-01T00:00:00.000000Z', '3', '2030-01-01T00:00:00.000000Z', '01900000-0000-7000-8000-000000000000']);
  });

  it('compares with a value read in SQL instead of a bind value when given one', () => {
    const plan = parseSort('title', fields);
    const condition = keysetCondition(plan, [trustedSql('(SELECT v FROM t)')], '01900000-0000-7000-8000-000000000000');
    expect(condition.text).toBe('(left(r.title, 200), r.title, r.id) > (left((SELECT v FROM t)::text, 200), (SELECT v FROM t)::text, ?::uuid)');
    expect(condition.params).toEqual(['01900000-0000-7000-8000-000000000000']);
  });
});
