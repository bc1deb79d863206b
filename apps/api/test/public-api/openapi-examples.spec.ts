import type { OpenAPIV3_1 } from 'openapi-types';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';
import { createEveryTypeModel, EVERY_TYPE_MODEL } from '../support/every-field-type';

const METHODS = ['get', 'post', 'patch', 'delete'] as const;

interface RequestExample {
  method: (typeof METHODS)[number];
  path: string;
  body: unknown;
}

/** Each operation's request body example (sampled from its schema, or given by the procedure). */
function requestExamples(document: OpenAPIV3_1.Document): RequestExample[] {
  const examples: RequestExample[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const body = (item?.[method]?.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content['application/json'];
      if (body) examples.push({ method, path, body: body.example });
    }
  }
  return examples;
}

/** A batch body about the record `id`: its `id`, and no `expectedVersion` (a sampled version is no record's). */
function withRecordIds(body: unknown, id: string): unknown {
  const { records } = body as { records: Array<Record<string, unknown>> };
  return { ...(body as object), records: records.map(({ expectedVersion: _sampled, ...record }) => ({ ...record, id })) };
}

/** Tools send a document's examples as they are (the issue: a generic create example the server refused). */
describe('every request example of the OpenAPI documents is accepted by the server', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  /** A record of each model: a PATCH example is about a record of the model it was sampled from. */
  const records: string[] = [];
  const documents: Record<'generic' | 'typed', OpenAPIV3_1.Document> = {} as never;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    await createEveryTypeModel(org);
    client = publicApi(api, org.key.token);
    for (const [model, data] of [
      [org.modelKey, { title: 'A task' }],
      [EVERY_TYPE_MODEL.key, { title: 'An invoice', score: 1 }],
    ] as const) {
      const created = await client.post(`/models/${model}/records`, { data });
      expect(created.status).toBe(201);
      records.push(((await created.json()) as { id: string }).id);
    }
    documents.generic = (await (await api.openApiDocument()).json()) as OpenAPIV3_1.Document;
    documents.typed = (await (await api.openApiDocument(org.key.token)).json()) as OpenAPIV3_1.Document;
  });
  afterAll(() => api.close());

  it.each(['generic', 'typed'] as const)('the %s document: each body example, sent to its operation, succeeds', async (which) => {
    const examples = requestExamples(documents[which]);
    expect(examples.map(({ method, path }) => `${method} ${path}`)).toEqual(expect.arrayContaining(['post /models/{key}/records', 'patch /records/{id}']));
    for (const { method, path, body } of examples) {
      const targets = path.includes('{id}') ? records.map((id) => path.replace('{id}', id)) : [path.replace('{key}', org.modelKey)];
      const outcomes: Array<{ status: number; body: unknown }> = [];
      for (const target of targets) {
        // A batch update's example names sampled ids: it is sent about a record of the path's model.
        const recordOfPath = records[target.startsWith(`/models/${EVERY_TYPE_MODEL.key}/`) ? 1 : 0];
        const sent = method === 'patch' && !path.includes('{id}') ? withRecordIds(body, recordOfPath) : body;
        const answer = method === 'post' ? await client.post(target, sent) : await client.patch(target, sent);
        outcomes.push({ status: answer.status, body: await answer.json() });
      }
      // An update's example is of one model's changes: a record of that model takes it.
      const succeeded = outcomes.some(({ status }) => status === 200 || status === 201);
      expect({ method, path, body, succeeded, outcomes }).toEqual({ method, path, body, succeeded: true, outcomes });
    }
  });
});
