import type { FieldError, Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';
import { exceedsLength } from '../values/text';
import type { ConfigRule, ConfigSchema, ConfigOf } from './config-schema';
import { parseConfigObject } from './config-schema';

/** Reusable rules for configuration values. Each returns the normalised value. */

export function integerRule(bounds: { min: number; max: number }): ConfigRule<number> {
  return (value, path) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return fail(path, 'invalid_type', `${path} must be an integer.`);
    }
    if (value < bounds.min || value > bounds.max) {
      return fail(path, 'out_of_range', `${path} must be between ${bounds.min} and ${bounds.max}.`);
    }
    return ok(value);
  };
}

export const finiteNumberRule: ConfigRule<number> = (value, path) =>
  typeof value === 'number' && Number.isFinite(value)
    ? ok(Object.is(value, -0) ? 0 : value)
    : fail(path, 'invalid_type', `${path} must be a finite number.`);

export const booleanRule: ConfigRule<boolean> = (value, path) =>
  typeof value === 'boolean' ? ok(value) : fail(path, 'invalid_type', `${path} must be a boolean.`);

export function stringRule(options: {
  maxLength: number;
  /** Normalises the string, or returns undefined when it is malformed. */
  normalise?: (text: string) => string | undefined;
  /** Completes "… must be …" in the error message for malformed strings. */
  description?: string;
}): ConfigRule<string> {
  return (value, path) => {
    if (typeof value !== 'string') return fail(path, 'invalid_type', `${path} must be a string.`);
    if (value.length === 0) return fail(path, 'invalid_format', `${path} must not be empty.`);
    if (exceedsLength(value, options.maxLength)) {
      return fail(path, 'too_long', `${path} must be at most ${options.maxLength} characters.`);
    }
    const normalised = options.normalise ? options.normalise(value) : value;
    if (normalised === undefined) {
      return fail(path, 'invalid_format', `${path} must be ${options.description ?? 'well-formed'}.`);
    }
    return ok(normalised);
  };
}

export function enumRule<const T extends string>(allowed: readonly T[]): ConfigRule<T> {
  return (value, path) =>
    typeof value === 'string' && (allowed as readonly string[]).includes(value)
      ? ok(value as T)
      : fail(path, 'invalid_option', `${path} must be one of ${allowed.join(', ')}.`);
}

export function arrayRule<T>(
  itemRule: ConfigRule<T>,
  bounds: { minItems: number; maxItems: number; unique?: boolean },
): ConfigRule<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) return fail(path, 'invalid_type', `${path} must be an array.`);
    if (value.length < bounds.minItems) {
      return fail(path, 'out_of_range', `${path} must contain at least ${bounds.minItems} item(s).`);
    }
    if (value.length > bounds.maxItems) {
      return fail(path, 'too_long', `${path} must contain at most ${bounds.maxItems} items.`);
    }
    const items: T[] = [];
    const errors: FieldError[] = [];
    for (let index = 0; index < value.length; index++) {
      const item: Result<T> = itemRule(value[index], `${path}[${index}]`);
      if (item.ok) items.push(item.value);
      else errors.push(...item.errors);
    }
    if (errors.length > 0) return failWith(errors);
    if (bounds.unique && new Set(items).size !== items.length) {
      return fail(path, 'invalid_option', `${path} must not contain duplicates.`);
    }
    return ok(items);
  };
}

export function objectRule<S extends ConfigSchema>(schema: S): ConfigRule<ConfigOf<S>> {
  return (value, path) => parseConfigObject(value, schema, path);
}
