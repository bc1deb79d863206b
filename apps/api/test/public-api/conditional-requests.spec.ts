import { startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  type OrganizationWithKey,
  type PublicApiClient,
} from '../support/public-api-fixtures';

interface RecordBody {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

const STRONG_TAG = /^"[0-9]+-[0-9]+(\.[0-9a-f]+)?"$/;

/** ETag, If-Match and If-None-Match on records (decision 93-94). */
describe('/api/v1 entity tags and preconditions', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let records: string;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api, { name: 'Preconditions Inc' });
    client = publicApi(api, org.key.token);
    records = `/models/${org.modelKey}/records`;
  });
  afterAll(() => api?.close());

  async function create(title: string): Promise<{ record: RecordBody; etag: string }> {
    const response = await client.post(records, { data: { title } });
    expect(response.status).toBe(201);
    return { record: (await response.json()) as RecordBody, etag: response.headers.get('etag')! };
  }

  async function versionOf(id: string): Promise<number> {
    const [row] = await queryDatabase<{ version: number }>(api, 'SELECT version FROM records WHERE id = $1', [id]);
    return row.version;
  }

  describe('ETag', () => {
    it('comes with POST, GET and PATCH answers, changes with every write, and leaves the record body as it was', async () => {
      const { record, etag } = await create('Tagged');
      expect(etag).toMatch(STRONG_TAG);
      expect(Object.keys(record).sort()).toEqual(['createdAt', 'createdBy', 'data', 'id', 'model', 'title', 'updatedAt', 'updatedBy']);

      const read = await client.get(`/records/${record.id}`);
      expect(read.headers.get('etag')).toBe(etag);
      const patched = await client.patch(`/records/${record.id}`, { data: { amount: 3 } });
      const patchedTag = patched.headers.get('etag');
      expect(patchedTag).toMatch(STRONG_TAG);
      expect(patchedTag).not.toBe(etag);
      expect((await client.get(`/records/${record.id}`)).headers.get('etag')).toBe(patchedTag);
      expect(await versionOf(record.id)).toBe(2);
    });

    it('differs for a fields= selection and after a field change, though the record did not change', async () => {
      const { record, etag } = await create('Shapes');
      const selected = (await client.get(`/records/${record.id}?fields=title`)).headers.get('etag');
      expect(selected).toMatch(STRONG_TAG);
      expect(selected).not.toBe(etag);
      await org.rpc('dataModels.fields.archive', { model: org.modelKey, key: 'notes' });
      const afterArchive = (await client.get(`/records/${record.id}`)).headers.get('etag');
      expect(afterArchive).not.toBe(etag);
      expect(await versionOf(record.id)).toBe(1);
      // A write checks the version alone: the tag read before the field change still matches it.
      expect((await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'If-Match': etag })).status).toBe(200);
    });

    it('also travels beside the /rpc answer, whose JSON is the same as without it', async () => {
      const { record, etag } = await create('Over rpc');
      const response = await api.request('/rpc/records.get', { method: 'POST', json: { id: record.id }, token: org.owner.session, organizationId: org.organizationId });
      expect(response.headers.get('etag')).toBe(etag);
      expect(await response.json()).toEqual(record);
    });
  });

  describe('If-None-Match on GET /records/{id}', () => {
    it('is a 304 with no body when it names the current tag (or *), a 200 otherwise', async () => {
      const { record, etag } = await create('Cached');
      const notModified = await client.get(`/records/${record.id}`, { 'If-None-Match': etag });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('etag')).toBe(etag);
      expect(await notModified.text()).toBe('');
      expect((await client.get(`/records/${record.id}`, { 'If-None-Match': `"0-0", W/${etag}` })).status).toBe(304);
      expect((await client.get(`/records/${record.id}`, { 'If-None-Match': '*' })).status).toBe(304);

      await client.patch(`/records/${record.id}`, { data: { amount: 5 } });
      const changed = await client.get(`/records/${record.id}`, { 'If-None-Match': etag });
      expect(changed.status).toBe(200);
      expect(((await changed.json()) as RecordBody).data['amount']).toBe(5);
    });

    it('leaves a missing record a 404 and a malformed header a 400', async () => {
      await expectError(await client.get('/records/01900000-0000-7000-8000-000000000000', { 'If-None-Match': '*' }), 404, 'not_found');
      const { record } = await create('Malformed read');
      await expectError(await client.get(`/records/${record.id}`, { 'If-None-Match': 'no-quotes' }), 400, 'bad_request');
    });
  });

  describe('If-Match on PATCH and DELETE', () => {
    it('writes when the tag is current; a stale tag is a 412 precondition_failed that writes nothing', async () => {
      const { record, etag } = await create('Guarded');
      const first = await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'If-Match': etag });
      expect(first.status).toBe(200);
      await expectError(await client.patch(`/records/${record.id}`, { data: { amount: 2 } }, { 'If-Match': etag }), 412, 'precondition_failed');
      await expectError(await client.delete(`/records/${record.id}`, { 'If-Match': etag }), 412, 'precondition_failed');
      await expectError(await client.delete(`/records/${record.id}?hard=true`, { 'If-Match': etag }), 412, 'precondition_failed');
      const current = (await (await client.get(`/records/${record.id}`)).json()) as RecordBody;
      expect(current.data['amount']).toBe(1);
      expect(await versionOf(record.id)).toBe(2);

      expect((await client.delete(`/records/${record.id}`, { 'If-Match': first.headers.get('etag')! })).status).toBe(200);
    });

    it('50 concurrent PATCHes with one If-Match: exactly one 200, 49 × 412', async () => {
      const { record, etag } = await create('Contended');
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, index) => client.patch(`/records/${record.id}`, { data: { amount: index } }, { 'If-Match': etag })),
      );
      const statuses = responses.map((response) => response.status);
      await Promise.all(responses.map((response) => response.arrayBuffer()));
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(49);
      expect(await versionOf(record.id)).toBe(2);
    });

    it('`*` asks only that the record exists: it writes at any version, and a missing record stays a 404', async () => {
      const { record } = await create('Star');
      await client.patch(`/records/${record.id}`, { data: { amount: 1 } });
      expect((await client.patch(`/records/${record.id}`, { data: { amount: 2 } }, { 'If-Match': '*' })).status).toBe(200);
      await expectError(
        await client.patch('/records/01900000-0000-7000-8000-000000000000', { data: { amount: 2 } }, { 'If-Match': '*' }),
        404,
        'not_found',
      );
    });

    it('a weak tag, or a well-formed tag this API never issued, never matches: 412; a missing record is still a 404', async () => {
      const { record, etag } = await create('Never');
      await expectError(await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'If-Match': `W/${etag}` }), 412, 'precondition_failed');
      await expectError(await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'If-Match': '"abc"' }), 412, 'precondition_failed');
      await expectError(await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'If-Match': '"99999999999"' }), 412, 'precondition_failed');
      await expectError(
        await client.patch('/records/01900000-0000-7000-8000-000000000000', { data: { amount: 1 } }, { 'If-Match': '"abc"' }),
        404,
        'not_found',
      );
      expect(await versionOf(record.id)).toBe(1);
    });

    it('a malformed value, or more than one tag, is a 400 bad_request that writes nothing', async () => {
      const { record, etag } = await create('Malformed');
      for (const ifMatch of ['1', '"1', 'W/1', `${etag} junk`, `${etag}, ${etag}`, ',']) {
        await expectError(await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'If-Match': ifMatch }), 400, 'bad_request');
      }
      expect(await versionOf(record.id)).toBe(1);
    });

    it('is not a body property: expectedVersion in a REST body is refused, as any unknown property', async () => {
      const { record } = await create('No body version');
      await expectError(await client.patch(`/records/${record.id}`, { data: { amount: 1 }, expectedVersion: 1 }), 400, 'validation_failed');
    });
  });

  describe('expectedVersion over /rpc', () => {
    it('is the same check: records.update and records.delete refuse another version with precondition_failed', async () => {
      const { record } = await create('Rpc versions');
      const auth = { token: org.owner.session, organizationId: org.organizationId };
      expect((await api.rpc('records.update', { id: record.id, data: { amount: 1 }, expectedVersion: 1 }, auth)).status).toBe(200);
      const stale = await api.rpc<{ error: { code: string } }>('records.update', { id: record.id, data: { amount: 2 }, expectedVersion: 1 }, auth);
      expect({ status: stale.status, code: stale.body.error.code }).toEqual({ status: 412, code: 'precondition_failed' });
      const staleDelete = await api.rpc<{ error: { code: string } }>('records.delete', { id: record.id, expectedVersion: 1 }, auth);
      expect(staleDelete.status).toBe(412);
      expect((await api.rpc('records.delete', { id: record.id, expectedVersion: 2 }, auth)).status).toBe(200);
    });
  });
});
