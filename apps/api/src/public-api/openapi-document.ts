import type { OpenAPIV3_1 } from 'openapi-types';
import { Type } from '@sinclair/typebox';
import { ERROR_CODES, IDEMPOTENCY_RETENTION_HOURS, MAX_IDEMPOTENCY_KEY_LENGTH, type ErrorCode } from '@mrp/platform';
import { EXPECTED_VERSION_PROPERTY, IF_MATCH_PATTERN, IF_NONE_MATCH_PATTERN, STRONG_ENTITY_TAG_PATTERN } from '../http/entity-tags';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN, IDEMPOTENT_METHODS } from './idempotency';
import { withExamples } from './openapi-examples';
import type { BoundRoute } from './route-binding';
import type { QueryParameter } from './query-parameters';

type SchemaObject = OpenAPIV3_1.SchemaObject;

const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Unsafe<string>({
        type: 'string',
        enum: [...ERROR_CODES],
        description: 'Stable machine-readable code; clients switch on it, never on the message',
      }),
      message: Type.String({ description: 'What went wrong, for a human' }),
      requestId: Type.String({ description: 'The X-Request-Id of the request: quote it to support, it names the log lines' }),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() }), {
          description: 'One entry per invalid field (validation_failed)',
        }),
      ),
    }),
  },
  { description: 'Every error response has this shape' },
);

/** A schema named by its `$id`, or by a `title` that reads as a type name (`Record`, `RecordList`), is a component. */
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** JSON Schema as OpenAPI 3.1 wants it: plain JSON, named schemas moved to components and referenced. */
function toSchema(schema: object, components: Record<string, SchemaObject>): SchemaObject {
  const plain = JSON.parse(JSON.stringify(schema)) as SchemaObject & { $id?: string };
  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (node === null || typeof node !== 'object') return node;
    const { $id, ...rest } = node as Record<string, unknown> & { $id?: string };
    const mapped = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, hoist(value)]));
    const name = typeof $id === 'string' ? $id : typeof rest['title'] === 'string' && COMPONENT_NAME.test(rest['title']) ? rest['title'] : undefined;
    if (name === undefined) return mapped;
    const existing = components[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(mapped)) {
      throw new Error(`OpenAPI: two different schemas are both named ${name}`);
    }
    components[name] = mapped as SchemaObject;
    return { $ref: `#/components/schemas/${name}` };
  };
  return hoist(plain) as SchemaObject;
}

const OPEN_API_DOCUMENT_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'An OpenAPI 3.1 document',
  properties: {
    openapi: { type: 'string', examples: ['3.1.0'] },
    info: { type: 'object', examples: [{ title: 'Public API', version: '1.0.0' }] },
    paths: { type: 'object', examples: [{}] },
    components: { type: 'object', examples: [{}] },
  },
  required: ['openapi', 'info', 'paths'],
};

const requestIdHeader: Record<string, OpenAPIV3_1.HeaderObject> = {
  'X-Request-Id': {
    description: "The request's id (the one sent, else a new one); quote it when reporting a problem",
    required: true,
    schema: { type: 'string' },
  },
};

const rateLimitHeaders: Record<string, OpenAPIV3_1.HeaderObject> = {
  ...requestIdHeader,
  'X-RateLimit-Limit': { description: 'Bucket capacity (the burst)', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Whole requests left in the bucket', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Whole seconds until the bucket is full again, if no request comes', schema: { type: 'integer', minimum: 0 } },
};

const EXAMPLE_REQUEST_ID = '0f5c2d4e-6b1a-4c8e-9d3f-2a7b8c9d0e1f';

const errorResponse = (
  description: string,
  headers: Record<string, OpenAPIV3_1.HeaderObject>,
  example: { code: ErrorCode; message: string; details?: Array<{ field: string; code: string; message: string }> },
): OpenAPIV3_1.ResponseObject => ({
  description,
  headers,
  content: {
    'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: { ...example, requestId: EXAMPLE_REQUEST_ID } } },
  },
});

const ERROR_RESPONSES: Record<string, OpenAPIV3_1.ResponseObject> = {
  BadRequest: errorResponse('Invalid parameters or body (bad_request, validation_failed)', rateLimitHeaders, {
    code: 'validation_failed',
    message: 'The request is invalid',
    details: [{ field: 'title', code: 'required', message: '"title" is required.' }],
  }),
  Unauthorized: errorResponse(
    'Key missing, invalid, revoked or expired; owner disabled, deleted or no longer a member (unauthorized)',
    {
      ...requestIdHeader,
      'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string', enum: ['Bearer'] } },
    },
    { code: 'unauthorized', message: 'Invalid API key' },
  ),
  Forbidden: errorResponse('The key or its owner lacks the required permission (forbidden)', rateLimitHeaders, {
    code: 'forbidden',
    message: 'Missing permission records.create',
  }),
  NotFound: errorResponse(
    'No such resource, or a record hidden from the caller (not_found); the public API is switched off on this deployment (public_api_disabled)',
    rateLimitHeaders,
    { code: 'not_found', message: 'Record not found' },
  ),
  PayloadTooLarge: errorResponse('Body over 1 MiB (payload_too_large)', rateLimitHeaders, { code: 'payload_too_large', message: 'The body is over 1 MiB' }),
  UnsupportedMediaType: errorResponse('Body is not application/json (unsupported_media_type)', rateLimitHeaders, {
    code: 'unsupported_media_type',
    message: 'Send the body as application/json',
  }),
  Conflict: errorResponse(
    'The Idempotency-Key was used for another request (idempotency_conflict), or a request with it is still running (request_in_progress); a concurrent change got in the way (conflict)',
    rateLimitHeaders,
    { code: 'idempotency_conflict', message: 'This Idempotency-Key was used for another request' },
  ),
  PreconditionFailed: errorResponse(
    'The record is no longer at the version If-Match names (precondition_failed); nothing was written',
    rateLimitHeaders,
    { code: 'precondition_failed', message: 'The record changed since the version If-Match names' },
  ),
  RateLimited: errorResponse(
    'Rate limit exceeded (rate_limited)',
    {
      ...rateLimitHeaders,
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
    },
    { code: 'rate_limited', message: 'Rate limit exceeded; retry in 1 s' },
  ),
  Unavailable: errorResponse(
    'Not now: a statement ran over its time limit and was stopped (query_timeout: narrow the filter before retrying); the organization already runs as many requests at once as it may, or the database is busy (service_unavailable)',
    {
      ...rateLimitHeaders,
      'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
    },
    { code: 'query_timeout', message: 'The query took longer than allowed and was stopped: narrow the filter or try again later' },
  ),
};

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

const ETAG_HEADER: OpenAPIV3_1.HeaderObject = {
  description: 'Strong entity tag of the record as answered; send it back in If-Match (writes) or If-None-Match (reads)',
  required: true,
  schema: { type: 'string', pattern: STRONG_ENTITY_TAG_PATTERN },
};

const HEADER_PARAMETERS: Record<string, OpenAPIV3_1.ParameterObject> = {
  IdempotencyKey: {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header',
    required: false,
    description:
      `Makes a retry safe: the first answer to a key is kept ${IDEMPOTENCY_RETENTION_HOURS} h (per API key) and sent again, with Idempotent-Replayed: true, ` +
      'to a retry of the same request (method, path, query, If-Match, body) without running it again; another request with the key is a 409 idempotency_conflict, ' +
      'a retry while the first still runs a 409 request_in_progress. Failures the request itself decided (4xx but 409 conflict) are kept too; 5xx are not.',
    schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The ETag the change is based on: at another version nothing is written and the answer is 412 precondition_failed (checked in the write itself). ' +
      '`*` asks only that the record exists. One tag only; a malformed value is a 400.',
    schema: { type: 'string', pattern: IF_MATCH_PATTERN },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'ETags the caller holds (or `*`): when one is the current one, the answer is 304 with no body.',
    schema: { type: 'string', pattern: IF_NONE_MATCH_PATTERN },
  },
};

const NOT_MODIFIED: OpenAPIV3_1.ResponseObject = {
  description: 'Not modified: the If-None-Match tag is current (no body)',
  headers: { ...rateLimitHeaders, ETag: ETAG_HEADER },
};

const EXPORT_HEADERS: Record<string, OpenAPIV3_1.HeaderObject> = {
  'Content-Disposition': {
    description: 'A download named after the model: attachment; filename="<model key>.csv" (or .ndjson)',
    required: true,
    schema: { type: 'string', pattern: '^attachment; filename="[A-Za-z0-9_-]+\\.(csv|ndjson)"$' },
  },
};

/** An export's two formats: CSV text, and NDJSON whose every line is a record, and the last one perhaps an error. */
function exportContent(schemas: Record<string, SchemaObject>): Record<string, OpenAPIV3_1.MediaTypeObject> {
  if (!schemas['Record']) throw new Error('OpenAPI: the export refers to the Record schema, which no route answers');
  return {
    'text/csv': {
      schema: {
        type: 'string',
        description:
          'RFC 4180, CRLF line ends: a header row (id, the field keys, createdAt, updatedAt), then one row per record; ' +
          'a failure after the first byte ends it with the row `#error,<code>,<message>`',
      },
      example: 'id,title,amount,createdAt,updatedAt\r\n0190f5d2-0a7b-7c3e-8a1b-2f4e6d8c9a01,Pay rent,12.5,2026-11-27T09:00:00.000Z,2026-11-27T09:00:00.000Z\r\n',
    },
    'application/x-ndjson': {
      schema: {
        description: 'Each line one record as the list answers it; a failure after the first byte ends the stream with an error line',
        anyOf: [{ $ref: '#/components/schemas/Record' }, { $ref: '#/components/schemas/Error' }],
      },
    },
  };
}

function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** A query parameter's value as the document shows it: the procedure's schema, or (JSON text) a JSON media type of it. */
function queryValue(parameter: QueryParameter, schemas: Record<string, SchemaObject>): { schema: SchemaObject } | { content: Record<string, { schema: SchemaObject }> } {
  const schema = toSchema(parameter.schema, schemas);
  return parameter.parsing === 'json' ? { content: { 'application/json': { schema } } } : { schema };
}

function jsonTextDescription(description: string | undefined): string {
  return description ? `${description}; sent as URL-encoded JSON` : 'URL-encoded JSON';
}

/** Whether a body names `property` anywhere (a batch's records carry their own `expectedVersion`). */
function namesProperty(schema: unknown, property: string): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const { properties, items } = schema as { properties?: Record<string, unknown>; items?: unknown };
  return (properties !== undefined && (Object.hasOwn(properties, property) || Object.values(properties).some((value) => namesProperty(value, property)))) || namesProperty(items, property);
}

function operationFor(bound: BoundRoute, schemas: Record<string, SchemaObject>): OpenAPIV3_1.OperationObject {
  const { route, procedure, pathParameters, query, body } = bound;
  const parameters: object[] = [
    ...pathParameters.map(({ name, schema }) => ({
      name,
      in: 'path' as const,
      required: true,
      description: schema.description,
      schema: toSchema(schema, schemas),
    })),
    ...query.parameters.map((parameter) => ({
      name: parameter.name,
      in: 'query' as const,
      required: parameter.required,
      description: parameter.parsing === 'json' ? jsonTextDescription(parameter.schema.description) : parameter.schema.description,
      ...queryValue(parameter, schemas),
    })),
  ];
  const idempotent = IDEMPOTENT_METHODS.has(route.method);
  const alternative = bound.alternative?.bound;
  // With an alternative, the primary's own headers are sent only when the primary runs.
  const onlyWithout = alternative ? ` (not with \`${bound.alternative?.whenBodyHas}\`)` : '';
  const headers: Record<string, OpenAPIV3_1.HeaderObject> = { ...rateLimitHeaders };
  if (route.location) {
    headers['Location'] = { description: `Where the created resource lives: /api/v1${route.location}${onlyWithout}`, required: !alternative, schema: { type: 'string' } };
  }
  if (procedure.versioned) headers['ETag'] = alternative ? { ...ETAG_HEADER, description: `${ETAG_HEADER.description}${onlyWithout}`, required: false } : ETAG_HEADER;
  const oneOfEither = (primary: SchemaObject, other: SchemaObject | undefined): SchemaObject => (other ? { oneOf: [primary, other] } : primary);
  if (idempotent) headers['Idempotent-Replayed'] = { description: 'true on an answer kept for this Idempotency-Key and sent again', schema: { type: 'string', enum: ['true'] } };
  if (route.streamsExport) Object.assign(headers, EXPORT_HEADERS);
  const success: OpenAPIV3_1.ResponseObject = {
    description: route.successStatus === 201 ? 'Created' : 'OK',
    headers,
    ...(route.streamsExport ? { content: exportContent(schemas) } : {}),
    ...(procedure.output
      ? { content: { 'application/json': { schema: oneOfEither(toSchema(procedure.output, schemas), alternative?.procedure.output && toSchema(alternative.procedure.output, schemas)) } } }
      : {}),
  };
  const conditionalRead = route.method === 'get' && procedure.versioned === true;
  const responses: OpenAPIV3_1.ResponsesObject = {
    [String(route.successStatus)]: success,
    ...(conditionalRead ? { '304': NOT_MODIFIED } : {}),
    '400': ref('BadRequest'),
    '401': ref('Unauthorized'),
    '403': ref('Forbidden'),
    '404': ref('NotFound'),
    ...(idempotent ? { '409': ref('Conflict') } : {}),
    ...(bound.takesIfMatch || namesProperty(body, EXPECTED_VERSION_PROPERTY) ? { '412': ref('PreconditionFailed') } : {}),
    ...(body ? { '413': ref('PayloadTooLarge'), '415': ref('UnsupportedMediaType') } : {}),
    '429': ref('RateLimited'),
    '503': ref('Unavailable'),
  };
  parameters.push(
    ...(idempotent ? [parameterRef('IdempotencyKey')] : []),
    ...(bound.takesIfMatch ? [parameterRef('IfMatch')] : []),
    ...(conditionalRead ? [parameterRef('IfNoneMatch')] : []),
  );
  const conditionalPermissions = (procedure.inputPermissions ?? []).map(({ permission, when }) => ({ permission, when }));
  const description = [
    route.description,
    ...conditionalPermissions.map(({ permission, when }) => `With ${when} this also requires ${permission}.`),
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(description ? { description } : {}),
    tags: [route.path.startsWith('/me') ? 'Identity' : /(^|\/)records(\/|$)/.test(route.path) ? 'Records' : 'Models'],
    parameters,
    ...(body
      ? { requestBody: { required: true, content: { 'application/json': { schema: oneOfEither(toSchema(body, schemas), alternative?.body && toSchema(alternative.body, schemas)) } } } }
      : {}),
    responses,
    security: [{ apiKey: [] }],
    'x-required-permission': procedure.permission,
    ...(conditionalPermissions.length > 0 ? { 'x-conditional-permissions': conditionalPermissions } : {}),
  } as unknown as OpenAPIV3_1.OperationObject;
}

/** The OpenAPI 3.1 description of /api/v1, generated from the route table bound to the procedures' schemas. */
export function buildOpenApiDocument(routes: readonly BoundRoute[]): OpenAPIV3_1.Document {
  const schemas: Record<string, SchemaObject> = { Error: toSchema(ErrorSchema, {}), OpenApiDocument: OPEN_API_DOCUMENT_SCHEMA };
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const bound of routes) {
    const path = openApiPath(bound.route.path);
    paths[path] = { ...(paths[path] ?? {}), [bound.route.method]: operationFor(bound, schemas) };
  }
  const openApiRoute = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description:
        'Needs no key. With a valid key it also describes, typed field by field, every Data Model the key may read ' +
        '(`data-models.read`) in its organization, with typed operations per model; a key that is not valid is a 401.',
      tags: ['Meta'],
      // Anonymous, or with a key.
      security: [{}, { apiKey: [] }],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document',
          headers: { ...requestIdHeader, Vary: { description: 'Authorization: the answer depends on the key', schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenApiDocument' } } },
        },
        '400': ref('BadRequest'),
        '401': ref('Unauthorized'),
        // Like every path below /api/v1 while the public API is switched off.
        '404': ref('NotFound'),
        '429': ref('RateLimited'),
        // With a key, the organization's models are read: that query has the same limits as any.
        '503': ref('Unavailable'),
      },
      'x-required-permission': null,
    },
  };
  paths['/openapi.json'] = openApiRoute as unknown as OpenAPIV3_1.PathItemObject;
  return withExamples({
    openapi: '3.1.0',
    info: {
      title: 'Public API',
      version: '1.0.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        "REST access to an organization's Data Models and records. Authenticate with `Authorization: Bearer mrk_…`. " +
        'Every call acts as the key owner with their live permissions (limited keys: intersected with the key allowlist). ' +
        'Rate limit: a token bucket per key (X-RateLimit-Limit / X-RateLimit-Remaining / X-RateLimit-Reset; 429 with Retry-After).',
    },
    servers: [{ url: '/api/v1' }],
    tags: [
      { name: 'Identity', description: 'Who the key acts as' },
      { name: 'Models', description: "The organization's Data Models and their fields" },
      { name: 'Records', description: 'Records of any model, by model key or by id' },
      { name: 'Meta', description: 'This description of the API' },
    ],
    paths,
    components: {
      schemas,
      parameters: HEADER_PARAMETERS,
      responses: ERROR_RESPONSES,
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'mrk_…', description: 'An API key' } },
    },
    security: [{ apiKey: [] }],
  });
}
