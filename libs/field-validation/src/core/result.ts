/** Machine-readable reasons a value, a configuration or a filter was refused. */
export const FIELD_ERROR_CODES = [
  'required',
  'invalid_type',
  'too_long',
  'out_of_range',
  'invalid_option',
  'invalid_format',
  'read_only',
  'unknown_field',
  // Never produced by this library: the server uses it when a relation points at a record that does not exist.
  'not_found',
] as const;

export type FieldErrorCode = (typeof FIELD_ERROR_CODES)[number];

export interface FieldError {
  /** The field key, or a path below it / below the configuration, e.g. `files[0].url` or `config.options`. */
  field: string;
  code: FieldErrorCode;
  /** Human-readable English explanation. May name keys, but never echoes submitted values back. */
  message: string;
}

export type Success<T> = { ok: true; value: T };
export type Failure = { ok: false; errors: FieldError[] };
export type Result<T> = Success<T> | Failure;

export function ok<T>(value: T): Success<T> {
  return { ok: true, value };
}

export function fail(field: string, code: FieldErrorCode, message: string): Failure {
  return { ok: false, errors: [{ field, code, message }] };
}

export function failWith(errors: FieldError[]): Failure {
  return { ok: false, errors };
}

export function mapResult<T, U>(result: Result<T>, transform: (value: T) => U): Result<U> {
  return result.ok ? ok(transform(result.value)) : result;
}
