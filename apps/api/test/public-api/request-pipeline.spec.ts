import { startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  setPublicApiEnabled,
  type OrganizationWithKey,
  type PublicApiClient,
} from '../support/public-api-fixtures';

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/**
 * The order a public route works in (CONTRACT "Endpoints": authentication, rate limit, handler;
 * DESIGN 4: the permission before the handler) and the edges of what it reads.
 */
describe('/api/v1 request pipeline', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let readOnly: PublicApiClient;
  let records: string;
  let recordId: string;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
    records = `/models/${org.modelKey}/records`;
    recordId = ((await (await client.post(records, { data: { title: 'Existing' } })).json()) as { id: string }).id;
    readOnly = publicApi(api, (await org.createKey({ name: 'reader', fullAccess: false, permissions: ['records.read'] })).token);
  });
  afterAll(() => api.close());

  const sendRaw = (method: string, path: string, body: string | undefined, contentType?: string, as = client) =>
    as.raw(method, path, body, contentType);

  describe('the permission is checked before the request is read', () => {
    it('a key without records.create is forbidden, whatever body or content type it sends', async () => {
      for (const [body, type] of [
        ['{"data":{"title":"x"}}', 'application/json'],
        ['not json at all', 'application/json'],
        ['title=x', 'text/plain'],
        ['', 'application/json'],
        [undefined, undefined],
      ] as const) {
        const error = await expectError(await sendRaw('POST', records, body, type, readOnly), 403, 'forbidden');
        expect(error.message).toBe('Missing permission records.create');
      }
      await expectError(await sendRaw('PATCH', `/records/${recordId}`, 'title=x', 'text/plain', readOnly), 403, 'forbidden');
    });

    it('a key without records.read is forbidden on the list even with invalid query parameters', async () => {
      const modelsOnly = publicApi(api, (await org.createKey({ name: 'models only', fullAccess: false, permissions: ['data-models.read'] })).token);
      const error = await expectError(await modelsOnly.get(`${records}?limit=0&bogus=1`), 403, 'forbidden');
      expect(error.message).toBe('Missing permission records.read');
    });

    it('a key without records.delete is forbidden before hard= is looked at; records.purge is checked after', async () => {
      await expectError(await readOnly.delete(`/records/${recordId}?hard=maybe`), 403, 'forbidden');
      const deleter = publicApi(api, (await org.createKey({ name: 'deleter', fullAccess: false, permissions: ['records.delete'] })).token);
      const purge = await expectError(await deleter.delete(`/records/${recordId}?hard=true`), 403, 'forbidden');
      expect(purge.message).toBe('Missing permission records.purge');
      expect((await client.get(`/records/${recordId}`)).status).toBe(200);
    });
  });

  describe('bodies', () => {
    it('a JSON content type with no body at all is validation_failed (data required), not 415', async () => {
      for (const method of ['POST', 'PATCH']) {
        const path = method === 'POST' ? records : `/records/${recordId}`;
        const error = await expectError(await sendRaw(method, path, undefined, 'application/json'), 400, 'validation_failed');
        expect(error.details).toEqual([expect.objectContaining({ field: 'data', code: 'required' })]);
      }
    });

    it('the content type is compared without case or parameters', async () => {
      const response = await sendRaw('POST', records, '{"data":{"title":"Typed"}}', 'Application/JSON; charset=UTF-8');
      expect(response.status).toBe(201);
    });

    it('JSON nested absurdly deep is bad_request, never a 500', async () => {
      const deep = `{"data":{"title":"x","notes":${nestedArrays(100_000)}}}`;
      const error = await expectError(await sendRaw('POST', records, deep, 'application/json'), 400, 'bad_request');
      expect(error.message).toBe('Malformed JSON body: nested deeper than 64 levels');
    });
  });

  describe('query parameters are parsed strictly, never guessed', () => {
    it.each([
      ['limit=1e1', 'limit'],
      ['limit=0x10', 'limit'],
      ['limit=%2010', 'limit'],
      ['limit=', 'limit'],
      ['limit=101', 'limit'],
      ['sort=', 'sort'],
      ['filter=%7B', 'filter'],
    ])('%s is validation_failed naming %s', async (query, field) => {
      const error = await expectError(await client.get(`${records}?${query}`), 400, 'validation_failed');
      expect(error.details).toEqual([expect.objectContaining({ field })]);
    });

    it('hard accepts only true or false', async () => {
      for (const value of ['1', 'yes', 'TRUE', '']) {
        const error = await expectError(await client.delete(`/records/${recordId}?hard=${value}`), 400, 'validation_failed');
        expect(error.details).toEqual([expect.objectContaining({ field: 'hard', code: 'invalid_format' })]);
      }
      expect((await client.get(`/records/${recordId}`)).status).toBe(200);
    });

    it('every problem is reported at once', async () => {
      const error = await expectError(await client.get(`${records}?limit=abc&colour=red&sort=title&sort=-title`), 400, 'validation_failed');
      expect(error.details?.map((detail) => [detail.field, detail.code]).sort()).toEqual([
        ['colour', 'unknown_field'],
        ['limit', 'invalid_format'],
        ['sort', 'invalid_format'],
      ]);
    });

    it('a filter must be a JSON object: a string holding JSON is not parsed a second time', async () => {
      const tree = JSON.stringify({ field: 'title', op: 'eq', value: 'Existing' });
      expect((await client.get(`${records}?filter=${encodeURIComponent(tree)}`)).status).toBe(200);
      for (const value of [JSON.stringify(tree), '[]', 'null', '42']) {
        const error = await expectError(await client.get(`${records}?filter=${encodeURIComponent(value)}`), 400, 'validation_failed');
        expect(error.details).toEqual([{ field: 'filter', code: 'invalid_type', message: 'must be object' }]);
      }
    });

    it('a filter nested absurdly deep is validation_failed, never a 500', async () => {
      const error = await expectError(await client.get(`${records}?filter=${nestedArrays(4000)}`), 400, 'validation_failed');
      expect(error.details).toEqual([expect.objectContaining({ field: 'filter', code: 'invalid_format' })]);
    });

    it('openapi.json takes no query parameters either', async () => {
      const error = await expectError(await api.request('/api/v1/openapi.json?format=yaml'), 400, 'validation_failed');
      expect(error.details).toEqual([expect.objectContaining({ field: 'format', code: 'unknown_field' })]);
    });
  });

  describe('paths are matched exactly as written', () => {
    it('another spelling of the prefix or a route is no route', async () => {
      for (const path of ['/API/V1/me', '/Api/v1/me', `/api/v1/RECORDS/${recordId}`]) {
        const response = await api.request(path, { token: org.key.token });
        await expectError(response, 404, 'not_found');
        expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      }
    });

    it('while the public API is off, no spelling of the prefix gets past the gate', async () => {
      await setPublicApiEnabled(api, false);
      try {
        for (const path of ['/API/V1/me', '/Api/V1/openapi.json', '/api/V1']) {
          await expectError(await api.request(path, { token: org.key.token }), 404, 'public_api_disabled');
        }
      } finally {
        await setPublicApiEnabled(api, true);
      }
    });
  });
});
