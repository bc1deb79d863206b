import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import {
  ISO_UTC,
  UUID_V7,
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  type OrganizationWithKey,
  type PublicApiClient,
} from '../support/public-api-fixtures';

interface RecordBody {
  id: string;
  model: string;
  title: string;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
}

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect({ status: response.status, body: text }).toMatchObject({ status });
  return JSON.parse(text) as T;
}

function expectRecordShape(record: RecordBody): void {
  expect(Object.keys(record).sort()).toEqual(['createdAt', 'createdBy', 'data', 'id', 'model', 'title', 'updatedAt', 'updatedBy']);
  expect(record.id).toMatch(UUID_V7);
  expect(record.createdAt).toMatch(ISO_UTC);
  expect(record.updatedAt).toMatch(ISO_UTC);
}

/** CONTRACT "Endpoints" with the shapes of DESIGN 5: the ten routes of /api/v1. */
describe('/api/v1 routes', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let records: string;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api, { name: 'Routes Inc' });
    client = publicApi(api, org.key.token);
    records = `/models/${org.modelKey}/records`;
  });
  afterAll(() => api.close());

  describe('GET /me', () => {
    it('names the principal, the organization, the key and the effective permissions, sorted', async () => {
      const me = await json<Record<string, unknown>>(await client.get('/me'));
      const [organization] = await queryDatabase<{ slug: string }>(api, 'SELECT slug FROM organizations WHERE id = $1', [org.organizationId]);
      expect(me).toEqual({
        principal: { id: org.owner.user.sub, kind: 'HUMAN', email: org.owner.user.email, displayName: org.owner.user.name },
        organization: { id: org.organizationId, name: 'Routes Inc', slug: organization.slug },
        apiKey: {
          id: org.key.id,
          name: org.key.name,
          prefix: org.key.token.slice(0, 12),
          fullAccess: true,
          permissions: [],
          expiresAt: null,
        },
        permissions: [...(me.permissions as string[])].sort(),
      });
      expect(me.permissions).toEqual(expect.arrayContaining(['organization.manage', 'records.purge', 'data-models.read']));
    });

    it("shows a limited key's allowlist and expiry", async () => {
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const key = await org.createKey({ name: 'limited', fullAccess: false, permissions: ['records.read', 'data-models.read'], expiresAt });
      const me = await json<{ apiKey: Record<string, unknown>; permissions: string[] }>(await publicApi(api, key.token).get('/me'));
      expect(me.apiKey).toEqual({
        id: key.id,
        name: 'limited',
        prefix: key.token.slice(0, 12),
        fullAccess: false,
        permissions: ['data-models.read', 'records.read'],
        expiresAt,
      });
      expect(me.permissions).toEqual(['data-models.read', 'records.read']);
    });
  });

  describe('GET /models, /models/{key}, /models/{key}/fields', () => {
    it('lists the models as { items, nextCursor }', async () => {
      const page = await json<Page<Record<string, unknown>>>(await client.get('/models'));
      expect(page.nextCursor).toBeNull();
      expect(page.items).toHaveLength(1);
      const [model] = page.items;
      expect(Object.keys(model).sort()).toEqual(['createdAt', 'description', 'key', 'name', 'updatedAt']);
      expect(model).toMatchObject({ key: org.modelKey, name: 'Tasks', description: 'Things to do' });
      expect(model.createdAt).toMatch(ISO_UTC);
      expect(model.updatedAt).toMatch(ISO_UTC);
    });

    it('gets one model by key', async () => {
      const model = await json<Record<string, unknown>>(await client.get(`/models/${org.modelKey}`));
      const [listed] = (await json<Page<unknown>>(await client.get('/models'))).items;
      expect(model).toEqual(listed);
    });

    it('lists the fields in position order, the reserved required title first', async () => {
      const page = await json<Page<Record<string, unknown>>>(await client.get(`/models/${org.modelKey}/fields`));
      expect(page.nextCursor).toBeNull();
      expect(page.items.map((field) => field.key)).toEqual(['title', 'status', 'amount', 'notes']);
      for (const field of page.items) {
        expect(field).toEqual(
          expect.objectContaining({
            key: expect.any(String),
            name: expect.any(String),
            type: expect.any(String),
            config: expect.any(Object),
            required: expect.any(Boolean),
            position: expect.any(Number),
            indexed: expect.any(Boolean),
            archivedAt: null,
          }),
        );
      }
      expect(page.items[0]).toMatchObject({ key: 'title', type: 'TEXT', required: true, position: 0 });
      expect(page.items[1]).toMatchObject({ key: 'status', type: 'SELECT', config: { options: [expect.objectContaining({ value: 'open' }), expect.objectContaining({ value: 'done' })] } });
    });

    it('gives each field exactly key, name, type, config, required, position, indexed, indexStatus, indexError and archivedAt', async () => {
      const page = await json<Page<Record<string, unknown>>>(await client.get(`/models/${org.modelKey}/fields`));
      expect(page.items).toHaveLength(4);
      for (const field of page.items) {
        expect({ field: field.key, keys: Object.keys(field).sort() }).toEqual({
          field: field.key,
          keys: ['archivedAt', 'config', 'indexError', 'indexStatus', 'indexed', 'key', 'name', 'position', 'required', 'type'],
        });
      }
      expect(page.items.find((field) => field.key === 'amount')).toEqual({
        key: 'amount',
        name: 'Amount',
        type: 'NUMBER',
        config: { precision: 2 },
        required: false,
        position: 2,
        indexed: false,
        indexStatus: null,
        indexError: null,
        archivedAt: null,
      });
    });

    it('leaves archived fields out of the field list and out of records', async () => {
      const withArchived = await createOrganizationWithKey(api, { modelKey: 'notes_model' });
      const archivedClient = publicApi(api, withArchived.key.token);
      const created = await json<RecordBody>(
        await archivedClient.post('/models/notes_model/records', { data: { title: 'n', notes: 'old' } }),
        201,
      );
      await withArchived.rpc('dataModels.fields.archive', { model: 'notes_model', key: 'notes' });
      const fields = await json<Page<{ key: string }>>(await archivedClient.get('/models/notes_model/fields'));
      expect(fields.items.map((field) => field.key)).not.toContain('notes');
      const record = await json<RecordBody>(await archivedClient.get(`/records/${created.id}`));
      expect(record.data).toEqual({ title: 'n' });
      await expectError(await archivedClient.patch(`/records/${created.id}`, { data: { notes: 'new' } }), 400, 'validation_failed');
    });
  });

  describe('fields=: only the keys of data asked for', () => {
    it('narrows GET /records/{id} and the list, and refuses a key the model lacks', async () => {
      const created = await json<RecordBody>(await client.post(records, { data: { title: 'Narrow me', status: 'open', amount: 3, notes: 'n' } }), 201);
      const one = await json<RecordBody>(await client.get(`/records/${created.id}?fields=amount,status`), 200);
      expect(one.data).toEqual({ amount: 3, status: 'open' });
      expect(one).toMatchObject({ id: created.id, title: 'Narrow me' });
      const page = await json<{ items: RecordBody[] }>(await client.get(`${records}?fields=title&limit=100`), 200);
      expect(page.items.length).toBeGreaterThan(0);
      for (const item of page.items) expect(Object.keys(item.data)).toEqual(['title']);

      const unknown = await expectError(await client.get(`/records/${created.id}?fields=amount,colour`), 400, 'validation_failed');
      expect(unknown.details).toEqual([{ field: 'fields', code: 'unknown_field', message: 'Unknown field "colour"' }]);
      await expectError(await client.get(`${records}?fields=`), 400, 'validation_failed');
    });
  });

  describe('POST /models/{key}/records, GET /records/{id}, PATCH, DELETE', () => {
    it('POST creates: 201 with the record', async () => {
      const response = await client.post(records, { data: { title: 'Write tests', status: 'open', amount: 12.5 } });
      const record = await json<RecordBody>(response, 201);
      expectRecordShape(record);
      expect(record).toMatchObject({
        model: org.modelKey,
        title: 'Write tests',
        data: { title: 'Write tests', status: 'open', amount: 12.5 },
        createdBy: org.owner.user.sub,
        updatedBy: org.owner.user.sub,
      });
      expect(record.updatedAt).toBe(record.createdAt);
      expect(Math.abs(Date.parse(record.createdAt) - Date.now())).toBeLessThan(60_000);
      // Location names the record, and reading it there answers the same record.
      expect(response.headers.get('location')).toBe(`/api/v1/records/${record.id}`);
      expect(await json<RecordBody>(await client.get(`/records/${record.id}`), 200)).toEqual(record);
    });

    it('POST and PATCH accept Content-Type: application/json; charset=utf-8', async () => {
      const send = (method: string, path: string, json: unknown) =>
        api.request(`/api/v1${path}`, {
          method,
          token: org.key.token,
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify(json),
        });
      const created = await json<RecordBody>(await send('POST', records, { data: { title: 'Crème brûlée', notes: 'naïve — ünïcode' } }), 201);
      expect(created.data).toEqual({ title: 'Crème brûlée', notes: 'naïve — ünïcode' });
      const patched = await json<RecordBody>(await send('PATCH', `/records/${created.id}`, { data: { notes: 'déjà vu' } }));
      expect(patched.data).toEqual({ title: 'Crème brûlée', notes: 'déjà vu' });
    });

    it('GET /records/{id} returns the same record', async () => {
      const created = await json<RecordBody>(await client.post(records, { data: { title: 'Fetch me', amount: 1 } }), 201);
      expect(await json<RecordBody>(await client.get(`/records/${created.id}`))).toEqual(created);
    });

    it('PATCH merges the given keys, and null clears a non-required field', async () => {
      const created = await json<RecordBody>(await client.post(records, { data: { title: 'Patch me', status: 'open', amount: 3, notes: 'keep' } }), 201);
      const merged = await json<RecordBody>(await client.patch(`/records/${created.id}`, { data: { status: 'done' } }));
      expectRecordShape(merged);
      expect(merged.data).toEqual({ title: 'Patch me', status: 'done', amount: 3, notes: 'keep' });
      expect(merged.createdAt).toBe(created.createdAt);
      expect(Date.parse(merged.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));

      const cleared = await json<RecordBody>(await client.patch(`/records/${created.id}`, { data: { amount: null, title: 'Patched' } }));
      expect(cleared.data).toEqual({ title: 'Patched', status: 'done', notes: 'keep' });
      expect(cleared.title).toBe('Patched');
      expect(await json<RecordBody>(await client.get(`/records/${created.id}`))).toEqual(cleared);

      const titleCleared = await expectError(await client.patch(`/records/${created.id}`, { data: { title: null } }), 400, 'validation_failed');
      expect(titleCleared.details).toEqual([expect.objectContaining({ field: 'title', code: 'required' })]);
    });

    it('DELETE soft-deletes: { id, deleted, hard: false }, then 404 to GET, PATCH and soft DELETE; records.restore brings it back', async () => {
      const created = await json<RecordBody>(await client.post(records, { data: { title: 'Soft' } }), 201);
      expect(await json(await client.delete(`/records/${created.id}`))).toEqual({ id: created.id, deleted: true, hard: false });
      expect(await json(await client.delete(`/records/${created.id}?hard=false`), 404)).toMatchObject({ error: { code: 'not_found' } });
      await expectError(await client.get(`/records/${created.id}`), 404, 'not_found');
      await expectError(await client.patch(`/records/${created.id}`, { data: { title: 'x' } }), 404, 'not_found');
      await expectError(await client.delete(`/records/${created.id}`), 404, 'not_found');
      const page = await json<Page<RecordBody>>(await client.get(`${records}?limit=100`));
      expect(page.items.map((item) => item.id)).not.toContain(created.id);

      await org.rpc('records.restore', { id: created.id });
      expect((await json<RecordBody>(await client.get(`/records/${created.id}`))).title).toBe('Soft');
    });

    it('DELETE ?hard=true purges, even a record already soft-deleted', async () => {
      const live = await json<RecordBody>(await client.post(records, { data: { title: 'Purge live' } }), 201);
      const soft = await json<RecordBody>(await client.post(records, { data: { title: 'Purge soft' } }), 201);
      await json(await client.delete(`/records/${soft.id}`));

      expect(await json(await client.delete(`/records/${live.id}?hard=true`))).toEqual({ id: live.id, deleted: true, hard: true });
      expect(await json(await client.delete(`/records/${soft.id}?hard=true`))).toEqual({ id: soft.id, deleted: true, hard: true });
      const rows = await queryDatabase(api, 'SELECT id FROM records WHERE id = ANY($1::uuid[])', [[live.id, soft.id]]);
      expect(rows).toEqual([]);
      const restore = await api.rpc('records.restore', { id: soft.id }, { token: org.owner.session, organizationId: org.organizationId });
      expect(restore.status).toBe(404);
    });
  });

  describe('GET /models/{key}/records: paging, sort and filter', () => {
    let listing: OrganizationWithKey;
    let lister: PublicApiClient;
    let created: RecordBody[];
    const rows = [
      { title: 'Delta', status: 'open', amount: 40 },
      { title: 'Alpha', status: 'done', amount: 10 },
      { title: 'Charlie', status: 'open', amount: 30 },
      { title: 'Bravo', status: 'done', amount: 20 },
      { title: 'Echo', status: 'open' },
    ];
    beforeAll(async () => {
      listing = await createOrganizationWithKey(api, { modelKey: 'listing' });
      lister = publicApi(api, listing.key.token);
      created = [];
      for (const data of rows) created.push(await json<RecordBody>(await lister.post('/models/listing/records', { data }), 201));
    });

    async function walk(query: string): Promise<{ pages: string[][]; cursors: Array<string | null> }> {
      const pages: string[][] = [];
      const cursors: Array<string | null> = [];
      let cursor: string | null = null;
      do {
        const separator = query ? '&' : '';
        const path = `/models/listing/records?${query}${separator}limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: Page<RecordBody> = await json<Page<RecordBody>>(await lister.get(path));
        page.items.forEach(expectRecordShape);
        pages.push(page.items.map((item) => item.title));
        cursors.push(page.nextCursor);
        cursor = page.nextCursor;
      } while (cursor && pages.length < 10);
      return { pages, cursors };
    }

    it('defaults to 25 newest first, as { items, nextCursor: null } when it all fits', async () => {
      const page = await json<Page<RecordBody>>(await lister.get('/models/listing/records'));
      expect(page.items.map((item) => item.id)).toEqual(created.map((record) => record.id).reverse());
      expect(page.nextCursor).toBeNull();
    });

    it('pages with limit and the opaque cursor until nextCursor is null', async () => {
      const { pages, cursors } = await walk('');
      expect(pages).toEqual([['Echo', 'Bravo'], ['Charlie', 'Alpha'], ['Delta']]);
      expect(cursors[0]).toEqual(expect.any(String));
      expect(cursors[cursors.length - 1]).toBeNull();
    });

    it('sorts by title, a field key, descending with -, and by several keys', async () => {
      expect((await walk('sort=title')).pages.flat()).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']);
      expect((await walk('sort=-amount')).pages.flat()).toEqual(['Echo', 'Delta', 'Charlie', 'Bravo', 'Alpha']);
      expect((await walk('sort=status,-amount')).pages.flat()).toEqual(['Bravo', 'Alpha', 'Echo', 'Delta', 'Charlie']);
      expect((await walk('sort=createdAt')).pages.flat()).toEqual(rows.map((row) => row.title));
    });

    it('filters with a URL-encoded JSON filter tree, paging included', async () => {
      const open = encodeURIComponent(JSON.stringify({ field: 'status', op: 'eq', value: 'open' }));
      expect((await walk(`filter=${open}&sort=title`)).pages).toEqual([['Charlie', 'Delta'], ['Echo']]);

      const tree = {
        and: [
          { field: 'amount', op: 'gte', value: 20 },
          { not: { field: 'title', op: 'startsWith', value: 'D' } },
        ],
      };
      const page = await json<Page<RecordBody>>(await lister.get(`/models/listing/records?sort=amount&filter=${encodeURIComponent(JSON.stringify(tree))}`));
      expect(page.items.map((item) => item.title)).toEqual(['Bravo', 'Charlie']);
      const empty = encodeURIComponent(JSON.stringify({ field: 'amount', op: 'isEmpty' }));
      expect((await walk(`filter=${empty}`)).pages).toEqual([['Echo']]);
    });

    it('refuses a cursor used with another sort, or tampered with', async () => {
      const first = await json<Page<RecordBody>>(await lister.get('/models/listing/records?limit=2&sort=title'));
      const cursor = first.nextCursor!;
      const otherSort = await lister.get(`/models/listing/records?limit=2&sort=-amount&cursor=${encodeURIComponent(cursor)}`);
      expect((await expectError(otherSort, 400, 'validation_failed')).details).toEqual([expect.objectContaining({ field: 'cursor' })]);
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
      const forged = await lister.get(`/models/listing/records?limit=2&sort=title&cursor=${encodeURIComponent(tampered)}`);
      expect((await expectError(forged, 400, 'validation_failed')).details).toEqual([expect.objectContaining({ field: 'cursor' })]);
    });
  });

  describe('each route runs the same procedure as /rpc', () => {
    it('answers every read route exactly as the procedure does over /rpc', async () => {
      const record = await json<RecordBody>(await client.post(records, { data: { title: 'Same everywhere', amount: 7 } }), 201);
      const pairs: Array<[string, string, unknown]> = [
        ['/models', 'dataModels.list', {}],
        [`/models/${org.modelKey}`, 'dataModels.get', { key: org.modelKey }],
        [`/models/${org.modelKey}/fields`, 'dataModels.fields.list', { model: org.modelKey }],
        [`${records}?limit=3&sort=-amount`, 'records.list', { model: org.modelKey, limit: 3, sort: '-amount' }],
        [`/records/${record.id}`, 'records.get', { id: record.id }],
      ];
      for (const [path, procedure, input] of pairs) {
        const rest = await json<unknown>(await client.get(path));
        expect({ path, body: rest }).toEqual({ path, body: await org.rpc(procedure, input) });
      }
    });

    it('a REST write is visible through /rpc and emits the same record events, with X-Request-Id as correlationId', async () => {
      const events: EventEnvelope[] = [];
      const unsubscribe = api.runtime.bus.subscribe('data-models.*', (event) => void events.push(event));
      try {
        const response = await client.post(records, { data: { title: 'Through REST', status: 'open' } }, { 'X-Request-Id': 'rest-create-1' });
        expect(response.headers.get('x-request-id')).toBe('rest-create-1');
        const record = await json<RecordBody>(response, 201);
        expect(await org.rpc('records.get', { id: record.id })).toEqual(record);

        const viaRpc = await api.request('/rpc/records.create', {
          method: 'POST',
          json: { model: org.modelKey, data: { title: 'Through RPC', status: 'open' } },
          token: org.owner.session,
          organizationId: org.organizationId,
          headers: { 'X-Request-Id': 'rpc-create-1' },
        });
        const rpcRecord = await json<RecordBody>(viaRpc);

        await client.patch(`/records/${record.id}`, { data: { status: 'done' } }, { 'X-Request-Id': 'rest-update-1' });
        await client.delete(`/records/${record.id}`, { 'X-Request-Id': 'rest-delete-1' });
        await api.runtime.bus.idle();

        expect(events.map((event) => [event.type, event.correlationId])).toEqual([
          ['data-models.record-created', 'rest-create-1'],
          ['data-models.record-created', 'rpc-create-1'],
          ['data-models.record-updated', 'rest-update-1'],
          ['data-models.record-deleted', 'rest-delete-1'],
        ]);
        const [restCreated, rpcCreated, updated, deleted] = events;
        expect(restCreated).toMatchObject({
          organizationId: org.organizationId,
          subscriptionAliases: [`data-models.${org.modelKey}.record-created`],
          payload: { modelKey: org.modelKey, recordId: record.id, record },
        });
        // The same event as the web application's, field for field.
        const { id: _restId, occurredAt: _restAt, correlationId: _restCorrelation, payload: restPayload, ...restEnvelope } = restCreated;
        const { id: _rpcId, occurredAt: _rpcAt, correlationId: _rpcCorrelation, payload: rpcPayload, ...rpcEnvelope } = rpcCreated;
        expect(restEnvelope).toEqual(rpcEnvelope);
        expect(Object.keys(restPayload as object).sort()).toEqual(Object.keys(rpcPayload as object).sort());
        expect((rpcPayload as { record: RecordBody }).record).toEqual(rpcRecord);
        expect(updated.payload).toMatchObject({ recordId: record.id, changedFields: ['status'] });
        expect(deleted.payload).toEqual({ modelKey: org.modelKey, recordId: record.id, hard: false });
      } finally {
        unsubscribe();
      }
    });

    it('a refused REST write emits nothing and writes nothing', async () => {
      const events: EventEnvelope[] = [];
      const unsubscribe = api.runtime.bus.subscribe('data-models.*', (event) => void events.push(event));
      try {
        const before = await queryDatabase<{ count: string }>(api, 'SELECT count(*) FROM records WHERE organization_id = $1', [org.organizationId]);
        await expectError(await client.post(records, { data: { title: 'x', status: 'bogus' } }), 400, 'validation_failed');
        const limited = await org.createKey({ name: 'reader', fullAccess: false, permissions: ['records.read'] });
        await expectError(await publicApi(api, limited.token).post(records, { data: { title: 'x' } }), 403, 'forbidden');
        await api.runtime.bus.idle();
        expect(events).toEqual([]);
        const after = await queryDatabase<{ count: string }>(api, 'SELECT count(*) FROM records WHERE organization_id = $1', [org.organizationId]);
        expect(after).toEqual(before);
      } finally {
        unsubscribe();
      }
    });
  });
});
