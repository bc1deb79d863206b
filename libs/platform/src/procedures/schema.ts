import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ErrorDetail } from '../errors/domain-error';

/** One Ajv instance for every procedure input; schemas are compiled once, when procedures are defined. */
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true });
addFormats(ajv);

export function compileSchema<T>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}

const CODE_BY_KEYWORD: Record<string, string> = {
  required: 'required',
  type: 'invalid_type',
  additionalProperties: 'unknown_field',
  enum: 'invalid_option',
  const: 'invalid_option',
  maxLength: 'too_long',
  maxItems: 'too_long',
  maxProperties: 'too_long',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  minItems: 'invalid_format',
  minLength: 'invalid_format',
  pattern: 'invalid_format',
  format: 'invalid_format',
};

function fieldPath(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = (error.params as { missingProperty?: string; additionalProperty?: string });
  const child = missing.missingProperty ?? missing.additionalProperty;
  if (child) return path ? `${path}.${child}` : child;
  return path || '(body)';
}

export function schemaErrorDetails(errors: readonly ErrorObject[] | null | undefined): ErrorDetail[] {
  const details = (errors ?? [])
    // anyOf/oneOf wrappers repeat what their branches already said.
    .filter((error) => error.keyword !== 'anyOf' && error.keyword !== 'oneOf' && error.keyword !== 'if')
    .map((error) => ({
      field: fieldPath(error),
      code: CODE_BY_KEYWORD[error.keyword] ?? 'invalid_format',
      message:
        error.keyword === 'additionalProperties'
          ? 'is not a known property'
          : error.keyword === 'enum'
            ? `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
            : (error.message ?? 'is invalid'),
    }));
  const seen = new Set<string>();
  return details.filter((detail) => {
    const key = `${detail.field}|${detail.code}|${detail.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
