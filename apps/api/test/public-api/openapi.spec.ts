import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { InMemoryRateLimiter } from '@mrp/authz';
import { publicApiRouter } from '../../src/public-api/public-api-router';
import { startTestApi, type TestApi } from '../support/test-api';
import { setPublicApiEnabled } from '../support/public-api-fixtures';

type Operation = OpenAPIV3_1.OperationObject & {
  'x-required-permission'?: string | null;
  'x-conditional-permissions'?: Array<{ permission: string; when: string }>;
};

const METHODS = ['get', 'post', 'patch', 'delete', 'put', 'head', 'options', 'trace'] as const;

/** DESIGN 4: the permission each route needs, as the document must state it. */
const REQUIRED_PERMISSIONS: Record<string, string | null> = {
  'GET /me': null,
  'GET /models': 'data-models.read',
  'GET /models/{key}': 'data-models.read',
  'GET /models/{key}/fields': 'data-models.read',
  'GET /models/{key}/records': 'records.read',
  'GET /models/{key}/records/count': 'records.read',
  'GET /models/{key}/records/export': 'records.read',
  'POST /models/{key}/records': 'records.create',
  'GET /records/{id}': 'records.read',
  'PATCH /records/{id}': 'records.update',
  'PATCH /models/{key}/records': 'records.update',
  'DELETE /records/{id}': 'records.delete',
  'POST /records/{id}/restore': 'records.delete',
  'GET /openapi.json': null,
};

/** The routes that take a JSON body; the rest take none. */
const BODY_ROUTES = ['POST /models/{key}/records', 'PATCH /models/{key}/records', 'PATCH /records/{id}'];

/** Only a create answers 201. */
const successStatus = (route: string) => (route === 'POST /models/{key}/records' ? '201' : '200');

function operations(document: OpenAPIV3_1.Document): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (operation) found.set(`${method.toUpperCase()} ${path}`, operation);
    }
  }
  return found;
}

/** CONTRACT "Versioning" and "Endpoints": an OpenAPI 3 description of every route, served without a key. */
describe('GET /api/v1/openapi.json', () => {
  let api: TestApi;
  let document: OpenAPIV3_1.Document;
  beforeAll(async () => {
    api = await startTestApi();
    await setPublicApiEnabled(api, true);
    const response = await api.request('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = (await response.json()) as OpenAPIV3_1.Document;
  });
  afterAll(() => api.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
  });

  it('declares the bearer key scheme, required by every route but openapi.json (where it is optional)', () => {
    const schemes = document.components?.securitySchemes ?? {};
    const bearer = Object.entries(schemes).filter(([, scheme]) => 'scheme' in scheme && scheme.type === 'http' && scheme.scheme === 'bearer');
    expect(bearer).toHaveLength(1);
    const [schemeName] = bearer[0];
    expect(document.security).toEqual([{ [schemeName]: [] }]);
    for (const [route, operation] of operations(document)) {
      expect({ route, security: operation.security }).toEqual({
        route,
        security: route === 'GET /openapi.json' ? [{}, { [schemeName]: [] }] : [{ [schemeName]: [] }],
      });
    }
  });

  it('names the required permission of every operation (x-required-permission, DESIGN 4)', () => {
    const stated = Object.fromEntries([...operations(document)].map(([route, operation]) => [route, operation['x-required-permission']]));
    expect(stated).toEqual(REQUIRED_PERMISSIONS);
  });

  it('states the permissions a hard delete and the trash also need (x-conditional-permissions), and no other', () => {
    const conditional = [...operations(document)]
      .filter(([, operation]) => operation['x-conditional-permissions'] !== undefined)
      .map(([route, operation]) => [route, operation['x-conditional-permissions']]);
    expect(conditional).toEqual([
      ['GET /models/{key}/records', [{ permission: 'records.delete', when: 'deleted=only' }]],
      ['GET /models/{key}/records/count', [{ permission: 'records.delete', when: 'deleted=only' }]],
      ['DELETE /records/{id}', [{ permission: 'records.purge', when: 'hard=true' }]],
    ]);
    expect(operations(document).get('DELETE /records/{id}')!.description).toContain('records.purge');
  });

  it('types the query parameters as they are parsed: limit an integer 1-100 (default 25), hard a boolean', () => {
    const queryOf = (route: string) =>
      Object.fromEntries(
        ((operations(document).get(route)!.parameters ?? []) as OpenAPIV3_1.ParameterObject[])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => [parameter.name, (parameter.schema ?? parameter.content?.['application/json']?.schema) as OpenAPIV3_1.SchemaObject]),
      );
    expect(queryOf('GET /models/{key}/records').limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(queryOf('GET /models/{key}/records').filter).toMatchObject({ type: 'object' });
    expect(queryOf('DELETE /records/{id}').hard).toMatchObject({ type: 'boolean', default: false });
  });

  it('describes parameters, request bodies and response schemas', () => {
    const all = operations(document);
    for (const [route, operation] of all) {
      if (route === 'GET /openapi.json') continue;
      const success = (operation.responses?.[successStatus(route)] ?? {}) as OpenAPIV3_1.ResponseObject;
      if (route === 'GET /models/{key}/records/export') {
        expect(success.content?.['text/csv']?.schema).toMatchObject({ type: 'string' });
        expect(success.content?.['application/x-ndjson']?.schema).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/Record' }, { $ref: '#/components/schemas/Error' }] });
      } else {
        expect({ route, schema: success.content?.['application/json']?.schema }).toEqual({ route, schema: expect.any(Object) });
      }
      const pathParams = [...route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const declared = ((operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter((parameter) => parameter.in === 'path');
      expect({ route, params: declared.map((parameter) => parameter.name) }).toEqual({ route, params: pathParams });
      expect(declared.every((parameter) => parameter.required)).toBe(true);
    }
    const listQuery = ((all.get('GET /models/{key}/records')!.parameters ?? []) as OpenAPIV3_1.ParameterObject[])
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name);
    expect(listQuery.sort()).toEqual(['cursor', 'deleted', 'expand', 'fields', 'filter', 'limit', 'q', 'sort']);
    const deleteQuery = ((all.get('DELETE /records/{id}')!.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter((parameter) => parameter.in === 'query');
    expect(deleteQuery.map((parameter) => parameter.name)).toEqual(['hard']);

    for (const route of ['POST /models/{key}/records', 'PATCH /records/{id}']) {
      const body = all.get(route)!.requestBody as OpenAPIV3_1.RequestBodyObject;
      expect(body.required).toBe(true);
      const schema = body.content['application/json'].schema as OpenAPIV3_1.SchemaObject;
      // A create's body is one record's or, with `records`, a batch's.
      const oneRecord = route.startsWith('POST') ? schema.oneOf?.[0] : schema;
      expect(oneRecord).toMatchObject({ type: 'object', required: ['data'], additionalProperties: false, properties: { data: { type: 'object' } } });
    }
    const createBody = (all.get('POST /models/{key}/records')!.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json'].schema as OpenAPIV3_1.SchemaObject;
    const updateManyBody = (all.get('PATCH /models/{key}/records')!.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json'].schema;
    for (const batch of [createBody.oneOf?.[1], updateManyBody]) {
      expect(batch).toMatchObject({ type: 'object', required: ['records'], additionalProperties: false, properties: { records: { type: 'array', minItems: 1, maxItems: 1000 } } });
    }
    for (const route of ['GET /me', 'GET /models', 'GET /records/{id}', 'DELETE /records/{id}', 'POST /records/{id}/restore']) {
      expect(all.get(route)!.requestBody).toBeUndefined();
    }
  });

  it('documents the error responses (400, 401, 403, 404, 429, 503; 413 and 415 where a body is sent) with the error schema', async () => {
    const dereferenced = (await SwaggerParser.dereference(structuredClone(document) as never)) as OpenAPIV3_1.Document;
    for (const [route, operation] of operations(dereferenced)) {
      if (route === 'GET /openapi.json') continue;
      const expected = ['400', '401', '403', '404', '429', '503', ...(BODY_ROUTES.includes(route) ? ['413', '415'] : [])];
      for (const status of expected) {
        const response = operation.responses?.[status] as OpenAPIV3_1.ResponseObject | undefined;
        const schema = response?.content?.['application/json']?.schema as OpenAPIV3_1.SchemaObject | undefined;
        expect({ route, status, error: schema?.properties?.error }).toEqual({
          route,
          status,
          error: expect.objectContaining({ required: expect.arrayContaining(['code', 'message']) }),
        });
      }
      const tooMany = operation.responses?.['429'] as OpenAPIV3_1.ResponseObject;
      expect(Object.keys(tooMany.headers ?? {})).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']));
      const notNow = operation.responses?.['503'] as OpenAPIV3_1.ResponseObject;
      expect(Object.keys(notNow.headers ?? {})).toEqual(expect.arrayContaining(['Retry-After']));
      const unauthorized = operation.responses?.['401'] as OpenAPIV3_1.ResponseObject;
      expect(Object.keys(unauthorized.headers ?? {})).toEqual(expect.arrayContaining(['WWW-Authenticate', 'X-Request-Id']));
      const success = operation.responses?.[successStatus(route)] as OpenAPIV3_1.ResponseObject;
      const answersRecord = ['POST /models/{key}/records', 'GET /records/{id}', 'PATCH /records/{id}', 'POST /records/{id}/restore'].includes(route);
      const write = /^(POST|PATCH|DELETE) /.test(route);
      expect(Object.keys(success.headers ?? {}).sort()).toEqual([
        ...(route.endsWith('/export') ? ['Content-Disposition'] : []),
        ...(answersRecord ? ['ETag'] : []),
        ...(write ? ['Idempotent-Replayed'] : []),
        ...(successStatus(route) === '201' ? ['Location'] : []),
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Request-Id',
      ]);
    }
  });

  it('documents Idempotency-Key on every write, If-Match (412) where the procedure takes expectedVersion, If-None-Match (304) on the record read', async () => {
    const dereferenced = (await SwaggerParser.dereference(structuredClone(document) as never)) as OpenAPIV3_1.Document;
    const headerParameters = new Map(
      [...operations(dereferenced)].map(([route, operation]) => [
        route,
        ((operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name),
      ]),
    );
    expect(Object.fromEntries([...headerParameters].filter(([, names]) => names.length > 0))).toEqual({
      'POST /models/{key}/records': ['Idempotency-Key'],
      'PATCH /models/{key}/records': ['Idempotency-Key'],
      'GET /records/{id}': ['If-None-Match'],
      'PATCH /records/{id}': ['Idempotency-Key', 'If-Match'],
      'DELETE /records/{id}': ['Idempotency-Key', 'If-Match'],
      'POST /records/{id}/restore': ['Idempotency-Key'],
    });
    const all = operations(dereferenced);
    const statuses = (route: string) => Object.keys(all.get(route)!.responses ?? {});
    expect(statuses('PATCH /records/{id}')).toEqual(expect.arrayContaining(['409', '412']));
    expect(statuses('DELETE /records/{id}')).toEqual(expect.arrayContaining(['409', '412']));
    expect(statuses('POST /models/{key}/records')).toContain('409');
    expect(statuses('POST /models/{key}/records')).not.toContain('412');
    // A batch update names each record's version in its body, so it may answer 412 without If-Match.
    expect(statuses('PATCH /models/{key}/records')).toEqual(expect.arrayContaining(['409', '412']));
    expect(statuses('POST /records/{id}/restore')).toContain('409');
    expect(statuses('GET /records/{id}')).toContain('304');
    expect(statuses('GET /models/{key}/records')).not.toContain('304');
    // The REST body never carries expectedVersion: If-Match is its only way in.
    const patchBody = all.get('PATCH /records/{id}')!.requestBody as OpenAPIV3_1.RequestBodyObject;
    expect(Object.keys((patchBody.content['application/json'].schema as OpenAPIV3_1.SchemaObject).properties ?? {})).toEqual(['data']);
    const codes = (dereferenced.components!.schemas!['Error'] as OpenAPIV3_1.SchemaObject).properties!['error'] as OpenAPIV3_1.SchemaObject;
    expect((codes.properties!['code'] as OpenAPIV3_1.SchemaObject).enum).toEqual(
      expect.arrayContaining(['idempotency_conflict', 'request_in_progress', 'precondition_failed']),
    );
  });

  it('lists exactly the routes the router serves', () => {
    const router = publicApiRouter(api.runtime, new InMemoryRateLimiter({ ratePerSecond: 5, burst: 20 }));
    const served = new Set<string>();
    for (const layer of router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue; // added by the router for every GET
        const path = String(layer.path).replace(/^\/api\/v1/, '').replace(/:(\w+)/g, '{$1}');
        served.add(`${method} ${path}`);
      }
    }
    expect([...served].sort()).toEqual([...operations(document).keys()].sort());
    expect(served.size).toBe(14);
  });
});
