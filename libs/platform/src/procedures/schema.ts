import Ajv, { type SchemaValidateFunction, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { unstorableText, type UnstorableText } from '@mrp/field-validation';
import type { ErrorDetail } from '../errors/domain-error';

/** One Ajv instance for every procedure input; schemas are compiled once, when procedures are defined. */
const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: true });
addFormats(ajv);

const STORABLE_TEXT = 'x-storable-text';
const STORABLE_KEYS = 'x-storable-keys';

const UNSTORABLE_MESSAGES: Readonly<Record<UnstorableText, string>> = {
  nul: 'must not contain the character U+0000 (NUL)',
  lone_surrogate: 'must be well-formed Unicode (no lone surrogate, U+D800 to U+DFFF)',
};

const storableText: SchemaValidateFunction = (_schema: unknown, data: unknown) => {
  const reason = typeof data === 'string' ? unstorableText(data) : undefined;
  if (reason === undefined) return true;
  storableText.errors = [{ keyword: STORABLE_TEXT, message: UNSTORABLE_MESSAGES[reason], params: {} }];
  return false;
};

const storableKeys: SchemaValidateFunction = (_schema: unknown, data: unknown) => {
  if (data === null || typeof data !== 'object') return true;
  const errors: Partial<ErrorObject>[] = [];
  for (const key of Object.keys(data)) {
    const reason = unstorableText(key);
    if (reason !== undefined) {
      errors.push({ keyword: STORABLE_KEYS, message: `property name ${UNSTORABLE_MESSAGES[reason]}`, params: { propertyName: key } });
    }
  }
  storableKeys.errors = errors;
  return errors.length === 0;
};

ajv.addKeyword({ keyword: STORABLE_TEXT, type: 'string', schemaType: 'boolean', errors: true, validate: storableText });
ajv.addKeyword({ keyword: STORABLE_KEYS, type: 'object', schemaType: 'boolean', errors: true, validate: storableKeys });

/** Keywords whose values are data, not schemas: nothing below them is marked. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(['default', 'const', 'enum', 'examples']);
/** Keywords whose values map names (which may be any word, `default` included) to schemas. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const declaresType = (schema: Record<string, unknown>, type: string) =>
  schema['type'] === type || (Array.isArray(schema['type']) && schema['type'].includes(type));

/**
 * A copy of `schema` in which every string schema refuses text PostgreSQL cannot store (U+0000, a
 * lone surrogate) and every object schema refuses such property names. Applied to every schema
 * compiled here, so no procedure can forget it; the caller's schema (which the OpenAPI document
 * shows) is left as it is. Values under an untyped schema (`Type.Unknown()`, e.g. record data)
 * are checked where they are interpreted: field-validation for record values, field
 * configurations and filters.
 */
function withStorableText(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withStorableText);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) copy[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, withStorableText(child)]));
    } else copy[key] = withStorableText(value);
  }
  if (declaresType(copy, 'string')) copy[STORABLE_TEXT] = true;
  if (declaresType(copy, 'object')) copy[STORABLE_KEYS] = true;
  return copy;
}

export function compileSchema<T>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(withStorableText(schema) as object);
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
  [STORABLE_TEXT]: 'invalid_format',
  [STORABLE_KEYS]: 'invalid_format',
  minItems: 'invalid_format',
  minLength: 'invalid_format',
  pattern: 'invalid_format',
  format: 'invalid_format',
};

function fieldPath(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = error.params as { missingProperty?: string; additionalProperty?: string; propertyName?: string };
  const child = params.missingProperty ?? params.additionalProperty ?? params.propertyName;
  if (child) return path ? `${path}.${child}` : child;
  return path || '(body)';
}

const isWrapper = (error: ErrorObject) => error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if';

export function schemaErrorDetails(errors: readonly ErrorObject[] | null | undefined): ErrorDetail[] {
  // A type error next to other errors at the same place comes from a branch of a union the value
  // was never meant for ("must be null" beside what is wrong with the string).
  const pathsWithOtherErrors = new Set(
    (errors ?? []).filter((error) => error.keyword !== 'type' && !isWrapper(error)).map((error) => error.instancePath),
  );
  const details = (errors ?? [])
    // anyOf/oneOf wrappers repeat what their branches already said.
    .filter((error) => !isWrapper(error))
    .filter((error) => error.keyword !== 'type' || !pathsWithOtherErrors.has(error.instancePath))
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
