import { isPlainObject } from '../core/plain-object';
import type { FieldError, Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';

/**
 * A tiny declarative schema for field configurations. Hand-written instead of Ajv because Ajv
 * compiles schemas with `new Function`, which this library must not use (strict CSP in browsers).
 */

/** Checks and normalises one configuration value; `path` is where errors are reported. */
export type ConfigRule<T> = (value: unknown, path: string) => Result<T>;

export interface RequiredProperty<T> {
  readonly presence: 'required';
  readonly rule: ConfigRule<T>;
}
export interface DefaultedProperty<T> {
  readonly presence: 'defaulted';
  readonly rule: ConfigRule<T>;
  readonly fallback: T;
}
export interface OptionalProperty<T> {
  readonly presence: 'optional';
  readonly rule: ConfigRule<T>;
}
export type ConfigProperty<T> = RequiredProperty<T> | DefaultedProperty<T> | OptionalProperty<T>;

export type ConfigSchema = Readonly<Record<string, ConfigProperty<unknown>>>;

export function required<T>(rule: ConfigRule<T>): RequiredProperty<T> {
  return { presence: 'required', rule };
}

/** Absent (or null) values are replaced by `fallback`, which must be immutable or primitive. */
export function withDefault<T>(rule: ConfigRule<T>, fallback: T): DefaultedProperty<T> {
  return { presence: 'defaulted', rule, fallback };
}

/** Absent (or null) values are left out of the normalised configuration. */
export function optional<T>(rule: ConfigRule<T>): OptionalProperty<T> {
  return { presence: 'optional', rule };
}

type ValueOf<P> = P extends ConfigProperty<infer T> ? T : never;
type AlwaysPresentKeys<S> = { [K in keyof S]: S[K] extends OptionalProperty<unknown> ? never : K }[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] };

/** The normalised configuration type a schema produces. */
export type ConfigOf<S extends ConfigSchema> = Simplify<
  { [K in AlwaysPresentKeys<S>]: ValueOf<S[K]> } & { [K in Exclude<keyof S, AlwaysPresentKeys<S>>]?: ValueOf<S[K]> }
>;

/**
 * Validates an object against a schema: unknown keys are rejected, required keys must be present,
 * defaults are filled. `null` counts as absent so UIs can send "unset" explicitly.
 */
export function parseConfigObject<S extends ConfigSchema>(raw: unknown, schema: S, path: string): Result<ConfigOf<S>> {
  if (!isPlainObject(raw)) return fail(path, 'invalid_type', `${path} must be an object.`);

  const errors: FieldError[] = [];
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(schema, key)) {
      errors.push({ field: `${path}.${key}`, code: 'unknown_field', message: `Unknown configuration key "${key}".` });
    }
  }

  const normalised: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema)) {
    const value = Object.hasOwn(raw, key) ? raw[key] : undefined;
    const propertyPath = `${path}.${key}`;
    if (value === undefined || value === null) {
      if (property.presence === 'required') {
        errors.push({ field: propertyPath, code: 'required', message: `${propertyPath} is required.` });
      } else if (property.presence === 'defaulted') {
        normalised[key] = property.fallback;
      }
      continue;
    }
    const result = property.rule(value, propertyPath);
    if (result.ok) normalised[key] = result.value;
    else errors.push(...result.errors);
  }

  if (errors.length > 0) return failWith(errors);
  // The loop above filled exactly the keys ConfigOf<S> describes, with values each rule vouched for.
  return ok(normalised as ConfigOf<S>);
}
