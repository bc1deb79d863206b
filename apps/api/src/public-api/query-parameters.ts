import { Type, type TSchema } from '@sinclair/typebox';
import { validationFailed, type ErrorDetail } from '@mrp/platform';
import { parseJsonWithinDepth } from '../http/json-depth';

/**
 * One query parameter of a public route: the typed schema the OpenAPI document shows, and the
 * strict parser the router applies to the raw string (`limit=1e1` or `hard=1` are errors, not
 * coerced guesses). A parser returns the value or a detail saying what is wrong.
 */
export interface QueryParameter {
  schema: TSchema;
  parse(raw: string, name: string): { value: unknown } | { error: Omit<ErrorDetail, 'field'> };
}

export type QueryParameters = Record<string, QueryParameter>;

const invalid = (message: string) => ({ error: { code: 'invalid_format', message } });

export function integerParameter(options: { minimum: number; maximum: number; default: number; description: string }): QueryParameter {
  return {
    schema: Type.Integer(options),
    parse(raw, name) {
      if (!/^[0-9]{1,9}$/.test(raw)) return invalid(`${name} must be a whole number`);
      const value = Number(raw);
      if (value < options.minimum || value > options.maximum) {
        return { error: { code: 'out_of_range', message: `${name} must be between ${options.minimum} and ${options.maximum}` } };
      }
      return { value };
    },
  };
}

export function booleanParameter(description: string): QueryParameter {
  return {
    schema: Type.Boolean({ default: false, description }),
    parse(raw, name) {
      if (raw === 'true') return { value: true };
      if (raw === 'false') return { value: false };
      return invalid(`${name} must be true or false`);
    },
  };
}

export function stringParameter(options: { minLength: number; maxLength: number; description: string }): QueryParameter {
  return {
    schema: Type.String(options),
    parse(raw, name) {
      if (raw.length < options.minLength || raw.length > options.maxLength) {
        return invalid(`${name} must be ${options.minLength} to ${options.maxLength} characters`);
      }
      return { value: raw };
    },
  };
}

/** A URL-encoded JSON object, parsed here so a syntax error names the parameter. */
export function jsonObjectParameter(options: { maxLength: number; description: string }): QueryParameter {
  return {
    schema: Type.String({ minLength: 2, maxLength: options.maxLength, contentMediaType: 'application/json', description: options.description }),
    parse(raw, name) {
      if (raw.length > options.maxLength) return invalid(`${name} must be at most ${options.maxLength} characters`);
      const parsed = parseJsonWithinDepth(raw);
      if ('error' in parsed) return invalid(`${name} must be URL-encoded JSON: ${parsed.error}`);
      const { value } = parsed;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return invalid(`${name} must be a JSON object`);
      return { value };
    },
  };
}

/**
 * The query of a request, parsed against the route's declaration: every problem is reported at
 * once; an unknown or repeated parameter is an error, never ignored.
 */
export function parseQuery(declared: QueryParameters, query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const details: ErrorDetail[] = [];
  for (const [name, raw] of Object.entries(query)) {
    const parameter = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!parameter) {
      const known = Object.keys(declared);
      const accepted = known.length > 0 ? `accepted: ${known.join(', ')}` : 'this route takes none';
      details.push({ field: name, code: 'unknown_field', message: `Unknown query parameter ${name} (${accepted})` });
    } else if (Array.isArray(raw)) {
      details.push({ field: name, code: 'invalid_format', message: `${name} may be given only once` });
    } else if (raw !== undefined) {
      const parsed = parameter.parse(raw, name);
      if ('error' in parsed) details.push({ field: name, ...parsed.error });
      else values[name] = parsed.value;
    }
  }
  if (details.length > 0) throw validationFailed(details, 'Invalid query parameters');
  return values;
}
