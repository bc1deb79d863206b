import { raw } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { toParameterized } from './parameterized-sql';

describe('toParameterized (MikroORM placeholders as PostgreSQL parameters)', () => {
  const platform = new PostgreSqlPlatform();
  const convert = (sql: string, params: unknown[]) => toParameterized(platform, sql, params);

  it('numbers the placeholders and keeps every value out of the text', () => {
    expect(convert("SELECT * FROM users WHERE email = ? AND name <> ?", ["o'brien@example.com", 'a?b'])).toEqual({
      text: 'SELECT * FROM users WHERE email = $1 AND name <> $2',
      values: ["o'brien@example.com", 'a?b'],
    });
  });

  it('leaves text without params exactly as it is, `?` included', () => {
    expect(convert("SELECT '?' AS mark, data \\? 'k'", [])).toEqual({ text: "SELECT '?' AS mark, data \\? 'k'", values: [] });
  });

  it('reads `\\?` as a question mark and `??` as an identifier', () => {
    expect(convert('SELECT data \\? ? AS ?? FROM t', ['key', 'has key'])).toEqual({
      text: 'SELECT data ? $1 AS "has key" FROM t',
      values: ['key'],
    });
  });

  it('writes an array as a comma list of parameters, as MikroORM does', () => {
    expect(convert('SELECT ARRAY[?]::uuid[], ? IN (?)', [['a', 'b'], 'x', []])).toEqual({
      text: 'SELECT ARRAY[$1, $2]::uuid[], $3 IN ()',
      values: ['a', 'b', 'x'],
    });
  });

  it('types numbers and booleans as the literals MikroORM wrote in their place', () => {
    expect(convert('SELECT ?, ?, ?, ?, ?, ?', [42, -7.5, 2 ** 40, 2 ** 60, Number.NaN, true])).toEqual({
      text: 'SELECT $1::int4, $2::numeric, $3::int8, $4::numeric, $5::float8, $6::boolean',
      values: ['42', '-7.5', String(2 ** 40), String(2 ** 60), 'NaN', 'true'],
    });
  });

  it('binds dates as ISO 8601 UTC, objects as JSON, buffers as they are, nothing as NULL', () => {
    const buffer = Buffer.from([0, 1, 2]);
    expect(convert('SELECT ?, ?, ?, ?, ?', [new Date('2030-01-02T03:04:05.678Z'), { k: 'v' }, buffer, null, undefined])).toEqual({
      text: 'SELECT $1, $2, $3, $4, $5',
      values: ['2030-01-02T03:04:05.678Z', '{"k":"v"}', buffer, null, null],
    });
  });

  it('splices a raw fragment in place, its own values bound in order', () => {
    expect(convert('SELECT ? WHERE a = ?', [raw('lower(?)', ['X']), 'y'])).toEqual({
      text: 'SELECT lower($1) WHERE a = $2',
      values: ['X', 'y'],
    });
  });
});
