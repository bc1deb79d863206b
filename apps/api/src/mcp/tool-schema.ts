import type { AnyProcedure } from '@mrp/platform';

/** A JSON Schema as plain data: what tools/list sends and what validates a tool's arguments. */
export type JsonSchema = Record<string, unknown>;

export interface ObjectJsonSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
}

export interface ToolSchemaSpec {
  /** The procedure properties the tool offers, under the same names; all of them when omitted. */
  pick?: readonly string[];
  /** Properties the tool requires beyond the procedure's own required ones (search_records's `q`). */
  require?: readonly string[];
  /** Narrowings of an array property's `maxItems`, never widenings: the tool's own safety ceiling. */
  maxItems?: Record<string, number>;
  /** Properties that belong to the door, not to the procedure (an idempotency key). */
  extra?: Record<string, JsonSchema>;
}

/** TypeBox schemas carry symbol keys; a JSON round trip leaves the plain JSON Schema a client reads. */
function plainJson<T>(schema: unknown): T {
  return JSON.parse(JSON.stringify(schema)) as T;
}

/**
 * A tool's input schema, cut from its procedure's input schema: the same properties with the same
 * types, ranges, lengths and descriptions, so /rpc, /api/v1 and /mcp cannot disagree about what is
 * valid. Throws at start-up when the spec names what the procedure does not take.
 */
export function toolInputSchema(procedure: AnyProcedure, spec: ToolSchemaSpec = {}): ObjectJsonSchema {
  const input = plainJson<ObjectJsonSchema>(procedure.input);
  const fail = (problem: string): never => {
    throw new Error(`Tool over ${procedure.name}: ${problem}`);
  };
  if (input.type !== 'object' || typeof input.properties !== 'object') fail('the procedure input is not an object schema');
  const names = spec.pick ?? Object.keys(input.properties);
  const properties: Record<string, JsonSchema> = {};
  for (const name of names) {
    if (!Object.hasOwn(input.properties, name)) fail(`the procedure has no input property "${name}"`);
    properties[name] = input.properties[name];
  }
  for (const [name, ceiling] of Object.entries(spec.maxItems ?? {})) {
    const property = properties[name] ?? fail(`no property "${name}" to narrow`);
    const current = typeof property['maxItems'] === 'number' ? property['maxItems'] : Infinity;
    properties[name] = { ...property, maxItems: Math.min(current, ceiling) };
  }
  for (const [name, schema] of Object.entries(spec.extra ?? {})) {
    if (Object.hasOwn(properties, name)) fail(`"${name}" is already a procedure property`);
    properties[name] = schema;
  }
  const required = [...(input.required ?? []).filter((name) => Object.hasOwn(properties, name)), ...(spec.require ?? [])];
  for (const name of spec.require ?? []) if (!Object.hasOwn(properties, name)) fail(`cannot require "${name}", which the tool does not take`);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
    additionalProperties: false,
  };
}
