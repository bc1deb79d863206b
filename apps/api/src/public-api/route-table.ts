import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { MAX_CURSOR_LENGTH } from '@mrp/data-models';
import { booleanParameter, integerParameter, jsonObjectParameter, stringParameter, type QueryParameters } from './query-parameters';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export interface RouteRequest {
  params: Record<string, string>;
  /** Query values parsed by the route's declared parameters. */
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * One row of the public API: a REST shape over an existing procedure. The router, the
 * permission check (the procedure's own) and the OpenAPI document are all derived from it.
 */
export interface PublicRoute {
  method: HttpMethod;
  /** Koa-style path below /api/v1, e.g. `/records/:id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The procedure this route runs, by name; null only for the unauthenticated OpenAPI route. */
  procedure: string;
  /** Path parameters, for the document; every `:name` in `path` must be listed. */
  pathParams?: Record<string, TSchema>;
  /** Accepted query parameters; anything else is a 400. */
  query?: QueryParameters;
  /** JSON body schema; its presence makes the route require `Content-Type: application/json`. */
  body?: TObject;
  successStatus: 200 | 201;
  toInput(request: RouteRequest): unknown;
}

const modelKey = Type.String({ description: 'The model key (lowercase letters, digits and underscores)' });
const recordId = Type.String({ description: 'The record id (a UUID)' });
const dataBody = (description: string) =>
  Type.Object(
    { data: Type.Record(Type.String(), Type.Unknown(), { description }) },
    { additionalProperties: false },
  );

const recordsQuery: QueryParameters = {
  limit: integerParameter({ minimum: 1, maximum: 100, default: 25, description: 'Page size' }),
  cursor: stringParameter({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'Opaque cursor from a previous page (nextCursor)' }),
  sort: stringParameter({
    minLength: 1,
    maxLength: 200,
    description: 'Up to 3 comma-separated keys: createdAt, updatedAt, title or a field key; prefix - for descending. Default -createdAt',
  }),
  filter: jsonObjectParameter({
    maxLength: 65536,
    description: 'URL-encoded JSON filter tree, e.g. {"field":"status","op":"eq","value":"open"}; at most 100 nodes, depth 8',
  }),
};

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'The identity and the organization the key acts as',
    procedure: 'me.identity',
    successStatus: 200,
    toInput: () => ({}),
  },
  {
    method: 'get',
    path: '/models',
    operationId: 'listModels',
    summary: "List the organization's Data Models",
    procedure: 'dataModels.list',
    successStatus: 200,
    toInput: () => ({}),
  },
  {
    method: 'get',
    path: '/models/:key',
    operationId: 'getModel',
    summary: 'Get one Data Model by its key',
    procedure: 'dataModels.get',
    pathParams: { key: modelKey },
    successStatus: 200,
    toInput: ({ params }) => ({ key: params.key }),
  },
  {
    method: 'get',
    path: '/models/:key/fields',
    operationId: 'listModelFields',
    summary: "List a model's field definitions",
    procedure: 'dataModels.fields.list',
    pathParams: { key: modelKey },
    successStatus: 200,
    toInput: ({ params }) => ({ model: params.key }),
  },
  {
    method: 'get',
    path: '/models/:key/records',
    operationId: 'listRecords',
    summary: "List a model's records, one page at a time",
    description: 'Keyset pagination: pass `nextCursor` back as `cursor` until it is null.',
    procedure: 'records.list',
    pathParams: { key: modelKey },
    query: recordsQuery,
    successStatus: 200,
    toInput: ({ params, query }) => ({ model: params.key, ...query }),
  },
  {
    method: 'post',
    path: '/models/:key/records',
    operationId: 'createRecord',
    summary: 'Create a record',
    procedure: 'records.create',
    pathParams: { key: modelKey },
    body: dataBody('Values keyed by field key; must include title'),
    successStatus: 201,
    toInput: ({ params, body }) => ({ model: params.key, data: (body as { data: unknown }).data }),
  },
  {
    method: 'get',
    path: '/records/:id',
    operationId: 'getRecord',
    summary: 'Get one record by id',
    procedure: 'records.get',
    pathParams: { id: recordId },
    successStatus: 200,
    toInput: ({ params }) => ({ id: params.id }),
  },
  {
    method: 'patch',
    path: '/records/:id',
    operationId: 'updateRecord',
    summary: 'Update a record (merge; null clears a non-required field)',
    procedure: 'records.update',
    pathParams: { id: recordId },
    body: dataBody('Values to change, keyed by field key'),
    successStatus: 200,
    toInput: ({ params, body }) => ({ id: params.id, data: (body as { data: unknown }).data }),
  },
  {
    method: 'delete',
    path: '/records/:id',
    operationId: 'deleteRecord',
    summary: 'Delete a record (soft by default; hard=true purges)',
    procedure: 'records.delete',
    pathParams: { id: recordId },
    query: { hard: booleanParameter('true purges the record, even one already soft-deleted (also needs records.purge)') },
    successStatus: 200,
    toInput: ({ params, query }) => ({ id: params.id, ...query }),
  },
];
