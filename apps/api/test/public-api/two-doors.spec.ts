import type { OpenAPIV3_1 } from 'openapi-types';
import type { TSchema } from '@sinclair/typebox';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, withoutRequestId, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';

interface Answer {
  status: number;
  body: unknown;
}

// The two doors' answers differ only by their request ids.
async function answerOf(response: Response): Promise<Answer> {
  return { status: response.status, body: withoutRequestId(await response.json()) };
}

/**
 * One procedure, two doors: a records.list input sent to /rpc and the same input sent as query
 * parameters of GET /api/v1/models/{key}/records get the same answer, success or error, because
 * the REST parameters are the procedure's own input properties.
 */
describe('/rpc and /api/v1 agree on records.list input', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
    for (const [title, amount] of [['Alpha', 1], ['Bravo', 2], ['Charlie', 3], ['Delta', 4]] as const) {
      expect((await client.post(`/models/${org.modelKey}/records`, { data: { title, amount, status: 'open' } })).status).toBe(201);
    }
  });
  afterAll(() => api.close());

  const viaRpc = async (input: Record<string, unknown>): Promise<Answer> =>
    answerOf(
      await api.request('/rpc/records.list', {
        method: 'POST',
        json: { model: org.modelKey, ...input },
        token: org.owner.session,
        organizationId: org.organizationId,
      }),
    );

  /** The same input as query parameters: the filter as its JSON text, the others as their text. */
  const viaRest = async (input: Record<string, unknown>): Promise<Answer> => {
    const query = Object.entries(input)
      .map(([name, value]) => `${name}=${encodeURIComponent(name === 'filter' ? JSON.stringify(value) : String(value))}`)
      .join('&');
    return answerOf(await client.get(`/models/${org.modelKey}/records?${query}`));
  };

  const tree = { field: 'amount', op: 'gte', value: 2 };
  const listSchema = () => api.runtime.procedures.require('records.list').input as TSchema & { properties: Record<string, TSchema> };

  it.each<[string, Record<string, unknown>, number]>([
    ['a filter tree', { filter: tree, sort: 'title' }, 200],
    ['a filter sent as a string holding JSON', { filter: JSON.stringify(tree) }, 400],
    ['a filter that is an array', { filter: [tree] }, 400],
    ['a filter that is null', { filter: null }, 400],
    ['a filter naming no field', { filter: { field: 'nope', op: 'eq', value: 1 } }, 400],
    ['a limit below the minimum', { limit: 0 }, 400],
    ['a negative limit', { limit: -5 }, 400],
    ['a limit above the maximum', { limit: 101 }, 400],
    ['an empty sort', { sort: '' }, 400],
    ['a sort by no field', { sort: 'nope' }, 400],
    ['a sort over its length', { sort: 'a'.repeat(201) }, 400],
    ['an empty cursor', { cursor: '' }, 400],
    ['a cursor over its length', { cursor: 'c'.repeat(513) }, 400],
    ['a cursor that is no cursor', { cursor: 'garbage' }, 400],
  ])('%s', async (_, input, status) => {
    const rpc = await viaRpc(input);
    expect(rpc.status).toBe(status);
    expect(await viaRest(input)).toEqual(rpc);
  });

  it('a page and its cursor are the same at both doors', async () => {
    const rpcFirst = await viaRpc({ limit: 2, sort: 'title', filter: tree });
    expect(rpcFirst.status).toBe(200);
    expect(await viaRest({ limit: 2, sort: 'title', filter: tree })).toEqual(rpcFirst);
    const cursor = (rpcFirst.body as { nextCursor: string }).nextCursor;
    const rpcSecond = await viaRpc({ limit: 2, sort: 'title', filter: tree, cursor });
    expect((rpcSecond.body as { items: Array<{ title: string }> }).items.map((record) => record.title)).toEqual(['Delta']);
    expect(await viaRest({ limit: 2, sort: 'title', filter: tree, cursor })).toEqual(rpcSecond);
  });

  it("takes its limits from the procedure's input schema: the router and the document follow it", async () => {
    const { limit, sort, cursor } = listSchema().properties;
    const maximum = limit['maximum'] as number;
    expect(await viaRest({ limit: maximum })).toMatchObject({ status: 200 });
    expect(await viaRest({ limit: maximum + 1 })).toEqual(await viaRpc({ limit: maximum + 1 }));
    expect(await viaRest({ sort: `-${'s'.repeat((sort['maxLength'] as number) - 1)}` })).toEqual(
      await viaRpc({ sort: `-${'s'.repeat((sort['maxLength'] as number) - 1)}` }),
    );

    const document = (await (await api.request('/api/v1/openapi.json')).json()) as OpenAPIV3_1.Document;
    const parameters = Object.fromEntries(
      (document.paths!['/models/{key}/records']!.get!.parameters as OpenAPIV3_1.ParameterObject[]).map((parameter) => [parameter.name, parameter]),
    );
    const plain = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as object;
    expect(parameters['limit'].schema).toEqual(plain(limit));
    expect(parameters['sort'].schema).toEqual(plain(sort));
    expect(parameters['cursor'].schema).toEqual(plain(cursor));
    expect(parameters['filter'].content).toEqual({ 'application/json': { schema: plain(listSchema().properties['filter']) } });
    expect(parameters['key'].schema).toEqual(plain(listSchema().properties['model']));
  });
});

describe('/rpc and /api/v1 agree on record bodies', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
  });
  afterAll(() => api.close());

  const rpcCreate = async (input: Record<string, unknown>): Promise<Answer> =>
    answerOf(
      await api.request('/rpc/records.create', {
        method: 'POST',
        json: { model: org.modelKey, ...input },
        token: org.owner.session,
        organizationId: org.organizationId,
      }),
    );

  it.each<[string, Record<string, unknown>]>([
    ['data that is not an object', { data: 'title' }],
    ['data without its title', { data: { amount: 1 } }],
    ['a property the procedure does not take', { data: { title: 'x' }, colour: 'red' }],
    ['no data at all', { note: 1 }],
  ])('%s', async (_, body) => {
    const rest = await answerOf(await client.post(`/models/${org.modelKey}/records`, body));
    expect(rest.status).toBe(400);
    expect(rest).toEqual(await rpcCreate(body));
  });

  it('documents the body as the procedure input the path leaves', async () => {
    const document = (await (await api.request('/api/v1/openapi.json')).json()) as OpenAPIV3_1.Document;
    const body = document.paths!['/models/{key}/records']!.post!.requestBody as OpenAPIV3_1.RequestBodyObject;
    const inputOf = (name: string) => api.runtime.procedures.require(name).input as TSchema & { properties: Record<string, TSchema> };
    // One record's body (records.create), or a batch's (records.createMany): told apart by `records`.
    expect(body.content['application/json'].schema).toEqual({
      oneOf: [
        {
          type: 'object',
          properties: { data: JSON.parse(JSON.stringify(inputOf('records.create').properties['data'])) },
          required: ['data'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: { records: JSON.parse(JSON.stringify(inputOf('records.createMany').properties['records'])) },
          required: ['records'],
          additionalProperties: false,
        },
      ],
    });
  });

  it('serves a batch create at the single create\'s path, as records.createMany does on /rpc', async () => {
    const batch = { records: [{ data: { title: 'Batch one' } }, { data: { title: 'Batch two' } }] };
    const rest = await client.post(`/models/${org.modelKey}/records`, batch);
    expect(rest.status).toBe(201);
    const viaRest = (await rest.json()) as { items: Array<{ title: string }> };
    const viaRpc = await org.rpc<{ items: Array<{ title: string }> }>('records.createMany', { model: org.modelKey, ...batch });
    expect(viaRest.items.map((item) => item.title)).toEqual(viaRpc.items.map((item) => item.title));
  });
});
