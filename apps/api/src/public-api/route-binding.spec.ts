import { Type } from '@sinclair/typebox';
import type { OpenAPIV3_1 } from 'openapi-types';
import { defineProcedure, isDomainError, schemaErrorDetails, type AnyProcedure } from '@mrp/platform';
import { buildOpenApiDocument } from './openapi-document';
import { parseQuery } from './query-parameters';
import { bindRoute } from './route-binding';
import type { PublicRoute } from './route-table';

/** A procedure like records.list, with its page limit and sort length as given. */
function listProcedure({ maxPage, maxSort }: { maxPage: number; maxSort: number }): AnyProcedure {
  return defineProcedure({
    name: 'things.list',
    summary: 'Lists things',
    scope: 'organization',
    permission: 'things.read',
    input: Type.Object(
      {
        model: Type.String({ minLength: 1, maxLength: 63, description: 'The model key' }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPage, default: 3, description: 'Page size' })),
        sort: Type.Optional(Type.String({ minLength: 1, maxLength: maxSort })),
        filter: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Filter tree' })),
        hard: Type.Optional(Type.Boolean({ default: false })),
      },
      { additionalProperties: false },
    ),
    handler: async () => ({}),
  });
}

const LIST_ROUTE: PublicRoute = {
  method: 'get',
  path: '/models/:key/things',
  operationId: 'listThings',
  summary: 'List things',
  procedure: 'things.list',
  pathParams: { key: 'model' },
  query: { limit: 'integer', sort: 'text', filter: 'json', hard: 'boolean' },
  successStatus: 200,
};

/** What parsing `query` answers: the values, or the error's details. */
function parsed(procedure: AnyProcedure, query: Record<string, string | string[]>): unknown {
  try {
    return parseQuery(bindRoute(LIST_ROUTE, procedure).query, query);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return error.details;
  }
}

/** The details /rpc gives for this input: the procedure's own validation. */
function procedureDetails(procedure: AnyProcedure, input: Record<string, unknown>): unknown {
  return procedure.validateInput(input) ? 'valid' : schemaErrorDetails(procedure.validateInput.errors);
}

function queryParametersOf(procedure: AnyProcedure): Record<string, OpenAPIV3_1.ParameterObject> {
  const document = buildOpenApiDocument([bindRoute(LIST_ROUTE, procedure)]);
  const operation = document.paths!['/models/{key}/things']!.get!;
  return Object.fromEntries((operation.parameters as OpenAPIV3_1.ParameterObject[]).map((parameter) => [parameter.name, parameter]));
}

describe('a public route bound to its procedure', () => {
  describe("takes every limit from the procedure's input schema, with no other edit", () => {
    it.each([
      { maxPage: 7, maxSort: 5 },
      { maxPage: 250, maxSort: 40 },
    ])('page limit $maxPage and sort length $maxSort reach the parser and the document', ({ maxPage, maxSort }) => {
      const procedure = listProcedure({ maxPage, maxSort });
      expect(parsed(procedure, { limit: String(maxPage), sort: 's'.repeat(maxSort) })).toEqual({ limit: maxPage, sort: 's'.repeat(maxSort), hard: false });
      const over = { limit: maxPage + 1, sort: 's'.repeat(maxSort + 1) };
      expect(parsed(procedure, { limit: String(over.limit), sort: over.sort })).toEqual(procedureDetails(procedure, { model: 'm', ...over }));

      const parameters = queryParametersOf(procedure);
      expect(parameters['limit']).toMatchObject({ in: 'query', required: false, description: 'Page size', schema: { type: 'integer', minimum: 1, maximum: maxPage, default: 3 } });
      expect(parameters['sort'].schema).toMatchObject({ type: 'string', minLength: 1, maxLength: maxSort });
      expect(parameters['key']).toMatchObject({ in: 'path', required: true, description: 'The model key', schema: { type: 'string', maxLength: 63 } });
    });
  });

  it('parses the query text strictly, then validates the values as the procedure does', () => {
    const procedure = listProcedure({ maxPage: 10, maxSort: 20 });
    expect(parsed(procedure, { limit: '-1', hard: 'true' })).toEqual(procedureDetails(procedure, { model: 'm', limit: -1, hard: true }));
    expect(parsed(procedure, { filter: '"{}"' })).toEqual(procedureDetails(procedure, { model: 'm', filter: '{}' }));
    expect(parsed(procedure, { filter: '{"field":"a"}' })).toEqual({ filter: { field: 'a' }, limit: 3, hard: false });
    expect(parsed(procedure, { limit: '1e1', hard: '1', filter: '{', colour: 'red', sort: ['a', 'b'] })).toEqual([
      { field: 'limit', code: 'invalid_format', message: 'limit must be a whole number' },
      { field: 'hard', code: 'invalid_format', message: 'hard must be true or false' },
      { field: 'filter', code: 'invalid_format', message: expect.stringMatching(/^filter must be URL-encoded JSON/) },
      { field: 'colour', code: 'unknown_field', message: 'Unknown query parameter colour (accepted: limit, sort, filter, hard)' },
      { field: 'sort', code: 'invalid_format', message: 'sort may be given only once' },
    ]);
  });

  it('documents a JSON parameter as JSON content holding a value of the procedure schema', () => {
    const filter = queryParametersOf(listProcedure({ maxPage: 10, maxSort: 20 }))['filter'];
    expect(filter).toMatchObject({
      description: 'Filter tree; sent as URL-encoded JSON',
      content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
    });
    expect(filter).not.toHaveProperty('schema');
  });

  it('takes the body from the input properties the path and the query leave, and never lets it set those', () => {
    const create = defineProcedure({
      name: 'things.create',
      summary: 'Creates a thing',
      scope: 'organization',
      permission: 'things.create',
      input: Type.Object(
        { model: Type.String({ maxLength: 63 }), data: Type.Record(Type.String(), Type.Unknown()), note: Type.Optional(Type.String({ maxLength: 4 })) },
        { additionalProperties: false },
      ),
      handler: async () => ({}),
    });
    const bound = bindRoute({ ...LIST_ROUTE, method: 'post', query: undefined, body: true, procedure: create.name }, create);
    expect(bound.body).toMatchObject({ type: 'object', required: ['data'], additionalProperties: false, properties: { data: { type: 'object' }, note: { maxLength: 4 } } });
    expect(bound.validateBody!({ data: {}, model: 'other' })).toBe(false);
    expect(bound.toInput({ params: { key: 'things' }, query: {}, body: { data: { a: 1 }, note: 'n' } })).toEqual({ model: 'things', data: { a: 1 }, note: 'n' });
  });

  describe('Location: a 201 route names where its resource lives, from what its procedure answers', () => {
    const create = defineProcedure({
      name: 'things.create',
      summary: 'Creates a thing',
      scope: 'organization',
      permission: 'things.create',
      input: Type.Object({ model: Type.String({ maxLength: 63 }), data: Type.Record(Type.String(), Type.Unknown()) }, { additionalProperties: false }),
      output: Type.Object({ id: Type.String() }),
      handler: async () => ({ id: 'x' }),
    });
    const createRoute: PublicRoute = { ...LIST_ROUTE, method: 'post', query: undefined, body: true, procedure: create.name, successStatus: 201 };

    it('fills the template from the answer, encoded', () => {
      expect(bindRoute({ ...createRoute, location: '/things/{id}' }, create).locationOf?.({ id: 'a b/c' })).toBe('/api/v1/things/a%20b%2Fc');
      expect(bindRoute({ ...createRoute, location: '/things/{id}/copies/{id}.json' }, create).locationOf?.({ id: '7?' })).toBe('/api/v1/things/7%3F/copies/7%3F.json');
    });

    it.each<[string, Partial<PublicRoute>, RegExp]>([
      ['a 201 without one', {}, /a 201 route must name its Location/],
      ['one naming what the answer lacks', { location: '/things/{key}' }, /names "key", which the procedure does not answer with/],
      ['one on a 200 route', { successStatus: 200, location: '/things/{id}' }, /only a 201 route has a Location/],
    ])('refuses %s at start-up', (_, change, message) => {
      expect(() => bindRoute({ ...createRoute, ...change }, create)).toThrow(message);
    });
  });

  describe('refuses, at start-up, a route that does not fit its procedure', () => {
    const procedure = listProcedure({ maxPage: 10, maxSort: 20 });
    it.each<[string, Partial<PublicRoute>, RegExp]>([
      ['a path parameter left unmapped', { pathParams: {} }, /pathParams must map exactly the path's parameters \(key\)/],
      ['a property the procedure lacks', { query: { colour: 'text' } }, /no input property "colour"/],
      ['a parsing that cannot produce the property type', { query: { limit: 'text' } }, /"limit" is parsed as text, but the procedure takes integer/],
      ['a property from both the path and the query', { query: { model: 'text' } }, /both the path and the query/],
      ['required input it cannot supply', { pathParams: undefined, path: '/things' }, /required input model comes from neither/],
    ])('%s', (_, change, message) => {
      expect(() => bindRoute({ ...LIST_ROUTE, ...change }, procedure)).toThrow(message);
    });
  });
});
