import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { compileSchema, type AnyProcedure } from '@mrp/platform';
import { EXPECTED_VERSION_PROPERTY, expectedVersionOf } from '../http/entity-tags';
import { PARSED_TYPES, declareQuery, type QueryDeclaration } from './query-parameters';
import { PUBLIC_API_PREFIX, type PublicRoute } from './route-table';

/** A path parameter and the input property it fills. */
export interface PathParameter {
  name: string;
  property: string;
  schema: TSchema;
}

/**
 * A route of the table joined to its procedure's input schema, once, when the router is built.
 * Everything a parameter or the body may hold (types, ranges, lengths, defaults, descriptions)
 * comes from that schema, so /rpc and /api/v1 cannot disagree, and the OpenAPI document shows
 * exactly what the procedure accepts.
 */
export interface BoundRoute {
  route: PublicRoute;
  procedure: AnyProcedure;
  pathParameters: readonly PathParameter[];
  query: QueryDeclaration;
  /** The input properties the JSON body carries; undefined when the route takes no body. */
  body: ObjectSchema | undefined;
  validateBody: ValidateFunction | undefined;
  /** The Location of a created resource, from the procedure's answer; undefined for a route that creates nothing. */
  locationOf: ((output: unknown) => string) | undefined;
  /** The procedure takes `expectedVersion`, which this route reads from If-Match (and from nowhere else). */
  takesIfMatch: boolean;
  /** The procedure's input: the body's properties, then the query's, then the path's and If-Match's (which always win). */
  toInput(request: { params: Record<string, string>; query: Record<string, unknown>; body: unknown; ifMatch?: string }): Record<string, unknown>;
  /** The route's alternative procedure (see PublicRoute.alternative), bound to the same path. */
  alternative?: { whenBodyHas: string; bound: BoundRoute };
}

export interface ObjectSchema {
  type: 'object';
  properties: Record<string, TSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

function isObjectSchema(schema: TSchema): schema is TSchema & ObjectSchema {
  return schema['type'] === 'object' && typeof schema['properties'] === 'object' && schema['properties'] !== null;
}

function typesOf(schema: TSchema): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? type : typeof type === 'string' ? [type] : [];
}

const LOCATION_PLACEHOLDER = /\{([A-Za-z_]+)\}/g;

/** A 201 route names where its resource lives, in terms of properties its procedure answers with. */
function locationTemplate(route: PublicRoute, procedure: AnyProcedure, fail: (problem: string) => never): BoundRoute['locationOf'] {
  if (route.successStatus !== 201) return route.location === undefined ? undefined : fail('only a 201 route has a Location');
  const template = route.location ?? fail('a 201 route must name its Location');
  const output = procedure.output as TSchema | undefined;
  const answered = output && isObjectSchema(output) ? output.properties : {};
  for (const [, property] of template.matchAll(LOCATION_PLACEHOLDER)) {
    if (!Object.hasOwn(answered, property)) fail(`the Location names "${property}", which the procedure does not answer with`);
  }
  // Split once: literal text at even indexes, the answered properties (the captures) at odd ones.
  const parts = template.split(LOCATION_PLACEHOLDER);
  return (result) => {
    let location = `${PUBLIC_API_PREFIX}${parts[0]}`;
    for (let index = 1; index < parts.length; index += 2) {
      location += encodeURIComponent(String((result as Record<string, unknown>)[parts[index]])) + parts[index + 1];
    }
    return location;
  };
}

/** Binds every route (and its alternative) to the procedures named; throws, at start-up, on a misfit. */
export function bindRoutes(routes: readonly PublicRoute[], procedureNamed: (name: string) => AnyProcedure): BoundRoute[] {
  return routes.map((route) => {
    const bound = bindRoute(route, procedureNamed(route.procedure));
    if (!route.alternative) return bound;
    const { procedure, whenBodyHas } = route.alternative;
    if (!route.body) throw new Error(`Public route ${route.method.toUpperCase()} ${route.path}: an alternative is chosen by the body, and the route takes none`);
    const alternative = bindRoute({ ...route, procedure, location: undefined, alternative: undefined }, procedureNamed(procedure), { alternativeOf: route });
    if (!alternative.body?.required?.includes(whenBodyHas)) {
      throw new Error(`Public route ${route.method.toUpperCase()} ${route.path}: ${procedure} requires no body property "${whenBodyHas}"`);
    }
    if (Object.hasOwn(bound.body?.properties ?? {}, whenBodyHas)) {
      throw new Error(`Public route ${route.method.toUpperCase()} ${route.path}: ${route.procedure} also takes "${whenBodyHas}"`);
    }
    return { ...bound, alternative: { whenBodyHas, bound: alternative } };
  });
}

/** The bound route a body selects: the alternative when the body has its property. */
export function boundForBody(bound: BoundRoute, body: unknown): BoundRoute {
  const alternative = bound.alternative;
  return alternative && typeof body === 'object' && body !== null && Object.hasOwn(body, alternative.whenBodyHas) ? alternative.bound : bound;
}

/** Throws, at start-up, when the route and its procedure do not fit together. */
export function bindRoute(route: PublicRoute, procedure: AnyProcedure, options: { alternativeOf?: PublicRoute } = {}): BoundRoute {
  const where = `${route.method.toUpperCase()} ${route.path} (${procedure.name})`;
  const fail = (problem: string): never => {
    throw new Error(`Public route ${where}: ${problem}`);
  };
  const input = procedure.input as TSchema;
  if (!isObjectSchema(input)) return fail('the procedure input is not an object schema');
  const properties = input.properties;
  const required = new Set(input.required ?? []);
  const propertySchema = (property: string): TSchema =>
    Object.hasOwn(properties, property) ? properties[property] : fail(`the procedure has no input property "${property}"`);

  if ((route.streamsExport === true) !== (procedure.streamsAnswer === true)) {
    fail(route.streamsExport ? 'the route streams an export, and the procedure answers none' : 'the procedure streams its answer: the route must say streamsExport');
  }
  const namesInPath = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]).sort();
  const mapped = Object.keys(route.pathParams ?? {}).sort();
  if (namesInPath.join() !== mapped.join()) fail(`pathParams must map exactly the path's parameters (${namesInPath.join(', ') || 'none'})`);
  const pathParameters = Object.entries(route.pathParams ?? {}).map(([name, property]) => ({ name, property, schema: propertySchema(property) }));

  const queryParameters = Object.entries(route.query ?? {}).map(([name, parsing]) => {
    const schema = propertySchema(name);
    if (!typesOf(schema).some((type) => PARSED_TYPES[parsing].includes(type))) {
      fail(`query parameter "${name}" is parsed as ${parsing}, but the procedure takes ${typesOf(schema).join(' or ') || 'an untyped value'}`);
    }
    return { name, parsing, schema, required: required.has(name) };
  });

  const takesIfMatch = Object.hasOwn(properties, EXPECTED_VERSION_PROPERTY);
  if (takesIfMatch && required.has(EXPECTED_VERSION_PROPERTY)) fail(`${EXPECTED_VERSION_PROPERTY} comes from If-Match, which is optional`);
  const fromRequest = new Set([...pathParameters.map((parameter) => parameter.property), ...queryParameters.map((parameter) => parameter.name)]);
  if (fromRequest.size !== pathParameters.length + queryParameters.length) fail('an input property is taken from both the path and the query');
  if (fromRequest.has(EXPECTED_VERSION_PROPERTY)) fail(`${EXPECTED_VERSION_PROPERTY} comes from If-Match, not from the path or the query`);
  if (takesIfMatch) fromRequest.add(EXPECTED_VERSION_PROPERTY);
  const remaining = Object.keys(properties).filter((property) => !fromRequest.has(property));
  let body: ObjectSchema | undefined;
  if (route.body) {
    const bodyRequired = remaining.filter((property) => required.has(property));
    body = {
      type: 'object',
      properties: Object.fromEntries(remaining.map((property) => [property, properties[property]])),
      ...(bodyRequired.length > 0 ? { required: bodyRequired } : {}),
      additionalProperties: false,
    };
  } else {
    const unreachable = remaining.filter((property) => required.has(property));
    if (unreachable.length > 0) fail(`required input ${unreachable.join(', ')} comes from neither the path nor the query, and the route takes no body`);
  }

  return {
    route,
    procedure,
    // An alternative answers without a Location (a batch creates many resources).
    locationOf: options.alternativeOf ? undefined : locationTemplate(route, procedure, fail),
    pathParameters,
    query: declareQuery(queryParameters),
    body,
    validateBody: body ? compileSchema(body) : undefined,
    takesIfMatch,
    toInput: ({ params, query, body: sent, ifMatch }) => {
      // Spreads define properties (a `__proto__` key stays a plain key, where assigning would set the prototype).
      const input: Record<string, unknown> = {
        ...(body && typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>) : {}),
        ...query,
      };
      // Path properties are the procedure's own names (never `__proto__`), checked when the route was bound.
      for (const parameter of pathParameters) input[parameter.property] = params[parameter.name];
      const expectedVersion = takesIfMatch ? expectedVersionOf(ifMatch) : undefined;
      if (expectedVersion !== undefined) input[EXPECTED_VERSION_PROPERTY] = expectedVersion;
      return input;
    },
  };
}
