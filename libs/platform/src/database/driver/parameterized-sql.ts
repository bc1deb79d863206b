import { JsonProperty, Utils, type Platform } from '@mikro-orm/core';

/** A bind value as PostgreSQL's text format carries it (a Buffer goes as binary: bytea). */
export type BindValue = string | Buffer | null;

/** SQL with `$1`, `$2`... placeholders and the values to bind to them, never spliced into the text. */
export interface ParameterizedSql {
  readonly text: string;
  readonly values: readonly BindValue[];
}

interface KnexSqlObject {
  toSQL(): { sql: string; bindings?: readonly unknown[] };
}

function isKnexSqlObject(value: unknown, platform: Platform): value is KnexSqlObject {
  return platform.isRaw(value) && typeof (value as Partial<KnexSqlObject>).toSQL === 'function';
}

/**
 * A number typed as PostgreSQL types the literal MikroORM used to write in its place (`42` is
 * an integer, `42.5` a numeric), so a statement means what it meant when values were inlined:
 * an untyped parameter in `jsonb_build_object('n', ?)` or `? IS NULL` would not even parse.
 */
function numberCast(value: number): string {
  if (!Number.isFinite(value)) return 'float8';
  if (!Number.isInteger(value)) return 'numeric';
  if (Math.abs(value) <= 2 ** 31 - 1) return 'int4';
  return Number.isSafeInteger(value) ? 'int8' : 'numeric';
}

class Builder {
  private text = '';
  readonly values: BindValue[] = [];

  constructor(private readonly platform: Platform) {}

  get sql(): string {
    return this.text;
  }

  append(text: string): void {
    this.text += text;
  }

  /** One `?`: MikroORM's `quoteValue`, except that values become parameters. */
  value(value: unknown): void {
    if (Utils.isRawSql(value)) return this.fragment(value.sql, value.params);
    if (isKnexSqlObject(value, this.platform)) {
      const { sql, bindings = [] } = value.toSQL();
      return this.fragment(sql, bindings);
    }
    if (Array.isArray(value)) {
      // MikroORM writes an array as a comma list (`IN (?)`, `ARRAY[?]`): so do we, one parameter each.
      value.forEach((item: unknown, index) => {
        if (index > 0) this.append(', ');
        this.value(item);
      });
      return;
    }
    if (value === null || value === undefined) return this.parameter(null);
    if (typeof value === 'string') return this.parameter(value);
    if (typeof value === 'boolean') return this.parameter(String(value), 'boolean');
    if (typeof value === 'number') return this.parameter(String(value), numberCast(value));
    if (typeof value === 'bigint') return this.parameter(String(value), 'numeric');
    // forceUtcTimezone: MikroORM writes dates as ISO 8601 UTC.
    if (value instanceof Date) return this.parameter(value.toISOString());
    if (Buffer.isBuffer(value)) return this.parameter(value);
    if (ArrayBuffer.isView(value)) return this.parameter(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    if (Utils.isPlainObject(value) || (typeof value === 'object' && JsonProperty in value)) return this.parameter(JSON.stringify(value));
    return this.parameter(String(value));
  }

  /** SQL with its own `?` placeholders and params, spliced in place. */
  fragment(sql: string, params: readonly unknown[]): void {
    if (params.length === 0) return this.append(sql);
    let next = 0;
    let position = 0;
    // MikroORM's grammar (Platform.formatQuery): `\?` is a literal `?`, `??` an identifier, `?` a value.
    for (let index = sql.indexOf('?'); index !== -1; index = sql.indexOf('?', position)) {
      if (index > 0 && sql[index - 1] === '\\') {
        this.append(`${sql.slice(position, index - 1)}?`);
        position = index + 1;
      } else if (sql[index + 1] === '?') {
        this.append(sql.slice(position, index) + this.platform.quoteIdentifier(String(params[next++])));
        position = index + 2;
      } else {
        this.append(sql.slice(position, index));
        this.value(params[next++]);
        position = index + 1;
      }
    }
    this.append(sql.slice(position));
  }

  private parameter(value: BindValue, cast?: string): void {
    this.values.push(value);
    this.append(cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`);
  }
}

/**
 * SQL written with MikroORM's placeholders (`?` a value, `??` an identifier, `\?` a literal `?`;
 * an array is a comma list) as PostgreSQL's numbered parameters and their values, which the
 * server receives apart from the text. Without params the text is left exactly as it is.
 */
export function toParameterized(platform: Platform, sql: string, params: readonly unknown[]): ParameterizedSql {
  const builder = new Builder(platform);
  builder.fragment(sql, params);
  return { text: builder.sql, values: builder.values };
}

function arrayElement(value: unknown): string {
  const bound = pgBindValue(value);
  if (bound === null) return 'NULL';
  const text = Buffer.isBuffer(bound) ? `\\x${bound.toString('hex')}` : bound;
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * A value in PostgreSQL's text format as `pg` would send it, for statements written with `$n`
 * placeholders by a library that hands pg plain JavaScript values: null and undefined are NULL,
 * a Date its ISO instant, an array a PostgreSQL array, any other object its JSON.
 */
export function pgBindValue(value: unknown): BindValue {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
