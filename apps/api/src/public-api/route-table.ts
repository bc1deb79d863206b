import type { QueryParsing } from './query-parameters';

export const PUBLIC_API_PREFIX = '/api/v1';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * One row of the public API: a REST shape over an existing procedure, naming only what is
 * REST's own. What each parameter and the body may hold comes from the procedure's input schema
 * (see route-binding.ts); the router, the permission check (the procedure's own) and the OpenAPI
 * document are all derived from the two.
 */
export interface PublicRoute {
  method: HttpMethod;
  /** Koa-style path below /api/v1, e.g. `/records/:id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** The procedure this route runs, by name. */
  procedure: string;
  /** Each `:name` of the path and the input property it fills, e.g. `{ key: 'model' }`. */
  pathParams?: Record<string, string>;
  /** The input properties read from the query string, by name, and how each one's text is parsed; any other parameter is a 400. */
  query?: Record<string, QueryParsing>;
  /** The input properties that come from neither the path nor the query arrive as a JSON body (`Content-Type: application/json`). */
  body?: true;
  successStatus: 200 | 201;
  /** For a 201: where the created resource now lives, below /api/v1, `{property}` filled from the answer. */
  location?: string;
  /**
   * Another procedure the same method and path run when the JSON body has the property
   * `whenBodyHas` (a batch beside a single write): same path parameters and status, its own body
   * and answer, no Location. The document shows both bodies and both answers as `oneOf`.
   */
  alternative?: { procedure: string; whenBodyHas: string };
  /**
   * The procedure answers a record export (records.export, `streamsAnswer`): the route writes it
   * as a CSV or NDJSON download while it reads it (export-stream.ts), and the document shows both.
   */
  streamsExport?: true;
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  {
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    summary: 'The identity and the organization the key acts as',
    procedure: 'me.identity',
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/models',
    operationId: 'listModels',
    summary: "List the organization's Data Models",
    procedure: 'dataModels.list',
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/models/:key',
    operationId: 'getModel',
    summary: 'Get one Data Model by its key',
    procedure: 'dataModels.get',
    pathParams: { key: 'key' },
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/models/:key/fields',
    operationId: 'listModelFields',
    summary: "List a model's field definitions",
    procedure: 'dataModels.fields.list',
    pathParams: { key: 'model' },
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/models/:key/records',
    operationId: 'listRecords',
    summary: "List a model's records, one page at a time",
    description:
      'Keyset pagination: pass `nextCursor` back as `cursor` until it is null. `q` searches the title and the text, email and URL fields; ' +
      '`deleted=only` lists the trash (soft-deleted records, newest deletion first) instead.',
    procedure: 'records.list',
    pathParams: { key: 'model' },
    query: { limit: 'integer', cursor: 'text', sort: 'text', filter: 'json', fields: 'text', expand: 'text', q: 'text', deleted: 'text' },
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/models/:key/records/count',
    operationId: 'countRecords',
    summary: "Count a model's records, or those a filter and search match",
    description:
      'The records the list would show for the same `filter`, `q` and `deleted`, counted up to a cap: past it, `count` is the cap and `capped` is true. ' +
      'Records the key may not see are never counted. The whole count takes one request from the rate limit.',
    procedure: 'records.count',
    pathParams: { key: 'model' },
    query: { filter: 'json', q: 'text', deleted: 'text' },
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/models/:key/records/export',
    operationId: 'exportRecords',
    summary: "Export every record of a model that the key may read, as CSV or NDJSON",
    description:
      'The records the list would show for the same `filter`, `q` and `sort` (all of them, not a page), with the `fields` and `expand` the list takes, ' +
      'streamed as a download (`Content-Disposition: attachment`). `csv`: RFC 4180, a header row of `id`, the field keys, `createdAt` and `updatedAt`; ' +
      "lists and objects (MULTI_SELECT, FILE, ATTACHMENTS) as JSON; a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`. " +
      '`ndjson`: one record per line, as the list answers it. A failure before the first byte is an ordinary error answer; after it, the stream ends with ' +
      'an error line instead of ending silently: `#error,<code>,<message>` (CSV) or `{"error":{...}}` (NDJSON). The whole export takes one request from the rate limit.',
    procedure: 'records.export',
    pathParams: { key: 'model' },
    query: { format: 'text', filter: 'json', sort: 'text', fields: 'text', expand: 'text', q: 'text' },
    successStatus: 200,
    streamsExport: true,
  },
  {
    method: 'post',
    path: '/models/:key/records',
    operationId: 'createRecord',
    summary: 'Create a record, or a batch of records',
    description:
      'A body with `data` creates one record. A body with `records` creates them all or none, in one transaction, and answers ' +
      '`items` in the same order, without a Location; a refusal names each bad record by its path (`records[17].data.email`). ' +
      'A batch takes one request from the rate limit, whatever its size.',
    procedure: 'records.create',
    alternative: { procedure: 'records.createMany', whenBodyHas: 'records' },
    pathParams: { key: 'model' },
    body: true,
    successStatus: 201,
    location: '/records/{id}',
  },
  {
    method: 'patch',
    path: '/models/:key/records',
    operationId: 'updateRecords',
    summary: 'Update a batch of records (merge, as for one)',
    description:
      'All or none, in one transaction. An id the key cannot see is reported as not found (`records[3].id`); a stale ' +
      '`expectedVersion` fails the whole batch with 412, naming each stale record. A batch takes one request from the rate limit.',
    procedure: 'records.updateMany',
    pathParams: { key: 'model' },
    body: true,
    successStatus: 200,
  },
  {
    method: 'get',
    path: '/records/:id',
    operationId: 'getRecord',
    summary: 'Get one record by id',
    procedure: 'records.get',
    pathParams: { id: 'id' },
    query: { fields: 'text', expand: 'text' },
    successStatus: 200,
  },
  {
    method: 'patch',
    path: '/records/:id',
    operationId: 'updateRecord',
    summary: 'Update a record (merge; null clears a non-required field)',
    procedure: 'records.update',
    pathParams: { id: 'id' },
    body: true,
    successStatus: 200,
  },
  {
    method: 'delete',
    path: '/records/:id',
    operationId: 'deleteRecord',
    summary: 'Delete a record (soft by default; hard=true purges)',
    procedure: 'records.delete',
    pathParams: { id: 'id' },
    query: { hard: 'boolean' },
    successStatus: 200,
  },
  {
    method: 'post',
    path: '/records/:id/restore',
    operationId: 'restoreRecord',
    summary: 'Restore a soft-deleted record',
    description: 'A record that is not deleted is a 409.',
    procedure: 'records.restore',
    pathParams: { id: 'id' },
    successStatus: 200,
  },
];
