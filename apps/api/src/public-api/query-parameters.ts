import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { compileSchema, schemaErrorDetails, validationFailed, type ErrorDetail } from '@mrp/platform';
import { parseJsonWithinDepth } from '../http/json-depth';

/**
 * How the text of a query parameter becomes a value, strictly (`limit=1e1` or `hard=1` are errors,
 * not coerced guesses). What the value may be (ranges, lengths, defaults) is the procedure's input
 * schema's to say, never the route's.
 */
export type QueryParsing = 'integer' | 'boolean' | 'text' | 'json';

/** The JSON Schema types each parsing produces: a route may only parse a property into its own type. */
export const PARSED_TYPES: Readonly<Record<QueryParsing, readonly string[]>> = {
  integer: ['integer'],
  boolean: ['boolean'],
  text: ['string'],
  json: ['object', 'array'],
};

type Parsed = { value: unknown } | { error: string };

const PARSERS: Readonly<Record<QueryParsing, (raw: string, name: string) => Parsed>> = {
  integer: (raw, name) => (/^-?[0-9]+$/.test(raw) ? { value: Number(raw) } : { error: `${name} must be a whole number` }),
  boolean: (raw, name) => (raw === 'true' ? { value: true } : raw === 'false' ? { value: false } : { error: `${name} must be true or false` }),
  text: (raw) => ({ value: raw }),
  json: (raw, name) => {
    const parsed = parseJsonWithinDepth(raw);
    return 'error' in parsed ? { error: `${name} must be URL-encoded JSON: ${parsed.error}` } : parsed;
  },
};

/** One query parameter of a route: an input property of its procedure, read from the query string. */
export interface QueryParameter {
  name: string;
  parsing: QueryParsing;
  /** The procedure's own schema of the property. */
  schema: TSchema;
  required: boolean;
}

export interface QueryDeclaration {
  parameters: readonly QueryParameter[];
  /** The parameters' schemas as one object schema, compiled once: its errors read as the procedure's do. */
  validate: ValidateFunction;
}

export function declareQuery(parameters: readonly QueryParameter[]): QueryDeclaration {
  const required = parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  return {
    parameters,
    validate: compileSchema({
      type: 'object',
      properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
      ...(required.length > 0 ? { required } : {}),
    }),
  };
}

/**
 * The query of a request, parsed and then validated against the procedure's schemas of those
 * properties: every problem is reported at once, with the details /rpc gives for the same value;
 * an unknown or repeated parameter is an error, never ignored.
 */
export function parseQuery(declared: QueryDeclaration, query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const details: ErrorDetail[] = [];
  for (const [name, raw] of Object.entries(query)) {
    const parameter = declared.parameters.find((candidate) => candidate.name === name);
    if (!parameter) {
      const known = declared.parameters.map((candidate) => candidate.name);
      const accepted = known.length > 0 ? `accepted: ${known.join(', ')}` : 'this route takes none';
      details.push({ field: name, code: 'unknown_field', message: `Unknown query parameter ${name} (${accepted})` });
    } else if (Array.isArray(raw)) {
      details.push({ field: name, code: 'invalid_format', message: `${name} may be given only once` });
    } else if (raw !== undefined) {
      const parsed = PARSERS[parameter.parsing](raw, name);
      if ('error' in parsed) details.push({ field: name, code: 'invalid_format', message: parsed.error });
      else values[name] = parsed.value;
    }
  }
  const unparsed = new Set(details.map((detail) => detail.field));
  if (!declared.validate(values)) {
    details.push(...schemaErrorDetails(declared.validate.errors).filter((detail) => !unparsed.has(detail.field)));
  }
  if (details.length > 0) throw validationFailed(details);
  return values;
}
