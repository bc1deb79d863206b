import { startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  expectError,
  publicApi,
  queryDatabase,
  type OrganizationWithKey,
  type PublicApiClient,
} from '../support/public-api-fixtures';

interface Item {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

const MISSING_ID = '0190a000-0000-7000-8000-000000000000';

/** Batch create (POST with `records`), batch update (PATCH /models/{key}/records) and records.deleteMany. */
describe('Batch writes over /api/v1', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let hiddenId: string;
  const records = '/models/tasks/records';

  const countRecords = async () =>
    Number((await queryDatabase<{ n: string }>(api, 'SELECT count(*) AS n FROM records WHERE organization_id = $1 AND deleted_at IS NULL', [org.organizationId]))[0].n);
  const createBatch = async (titles: string[]): Promise<Item[]> => {
    const response = await client.post(records, { records: titles.map((title) => ({ data: { title } })) });
    expect(response.status).toBe(201);
    return ((await response.json()) as { items: Item[] }).items;
  };

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '10000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
    const financeRoleId = (await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] })).id;
    [{ id: hiddenId }] = await createBatch(['Hidden']);
    await org.rpc('records.setAccess', { id: hiddenId, roleIds: [financeRoleId] });
  }, 60_000);
  afterAll(() => api.close());

  describe('create', () => {
    it('creates every record, answers them in order without a Location, and a single body still creates one', async () => {
      const before = await countRecords();
      const response = await client.post(records, {
        records: [{ data: { title: 'One', amount: 1.5 } }, { data: { title: 'Two', status: 'open' } }, { data: { title: 'Three' } }],
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBeNull();
      const { items } = (await response.json()) as { items: Item[] };
      expect(items.map((item) => [item.title, item.data])).toEqual([
        ['One', { title: 'One', amount: 1.5 }],
        ['Two', { title: 'Two', status: 'open' }],
        ['Three', { title: 'Three' }],
      ]);
      expect(await countRecords()).toBe(before + 3);
      const read = await client.get(`/records/${items[1].id}`);
      expect(((await read.json()) as Item).title).toBe('Two');

      const single = await client.post(records, { data: { title: 'Alone' } });
      expect(single.status).toBe(201);
      expect(single.headers.get('location')).toMatch(/^\/api\/v1\/records\//);
      expect(single.headers.get('etag')).toBeTruthy();
    });

    it('writes nothing when one record is bad, and names each bad one by its path', async () => {
      const before = await countRecords();
      const error = await expectError(
        await client.post(records, {
          records: [{ data: { title: 'Fine' } }, { data: { title: 'Bad amount', amount: 'lots' } }, { data: { notes: 'no title' } }],
        }),
        400,
        'validation_failed',
      );
      expect(error.details?.map((detail) => detail.field).sort()).toEqual(['records[1].data.amount', 'records[2].data.title']);
      expect(await countRecords()).toBe(before);
    });

    it('names at most 100 problems, and says how many there were', async () => {
      const error = await expectError(
        await client.post(records, { records: Array.from({ length: 150 }, (_, index) => ({ data: { title: `Bad ${index}`, amount: 'x' } })) }),
        400,
        'validation_failed',
      );
      expect(error.details).toHaveLength(100);
      expect(error.details?.[99].field).toBe('records[99].data.amount');
      expect(error.message).toContain('150 problems in 150 records');
    });

    it('refuses an empty batch, one over 1,000 records, and a body with both data and records', async () => {
      await expectError(await client.post(records, { records: [] }), 400, 'validation_failed');
      await expectError(await client.post(records, { records: Array.from({ length: 1001 }, () => ({ data: { title: 'x' } })) }), 400, 'validation_failed');
      await expectError(await client.post(records, { data: { title: 'x' }, records: [{ data: { title: 'y' } }] }), 400, 'validation_failed');
    });

    it('replays a batch sent again with its Idempotency-Key, writing it once', async () => {
      const before = await countRecords();
      const body = { records: [{ data: { title: 'Kept A' } }, { data: { title: 'Kept B' } }] };
      const first = await client.post(records, body, { 'Idempotency-Key': 'batch-1' });
      expect(first.status).toBe(201);
      const again = await client.post(records, body, { 'Idempotency-Key': 'batch-1' });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await first.json());
      expect(await countRecords()).toBe(before + 2);
    });

    it('emits one record-created event per record: a webhook delivery and an automation run for each', async () => {
      const endpoint = await org.rpc<{ endpoint: { id: string } }>('webhooks.endpoints.create', {
        url: 'http://127.0.0.1:9/hook',
        subscriptions: ['data-models.tasks.record-created'],
      });
      const automation = await org.rpc<{ id: string }>('automations.create', {
        name: 'Note each task',
        trigger: { type: 'event', eventType: 'data-models.tasks.record-created' },
        actions: [{ type: 'notify', role: 'owner', title: 'New task', body: '{{event.payload.record.title}}' }],
      });
      const items = await createBatch(['Event A', 'Event B', 'Event C']);
      const deliveries = await queryDatabase<{ body: string }>(
        api,
        'SELECT b.body FROM webhook_deliveries d JOIN webhook_event_bodies b ON b.event_id = d.event_id WHERE d.endpoint_id = $1',
        [endpoint.endpoint.id],
      );
      const delivered = deliveries.map((row) => (JSON.parse(row.body) as { payload: { recordId: string } }).payload.recordId);
      expect(delivered.sort()).toEqual(items.map((item) => item.id).sort());
      const runs = await queryDatabase<{ event: { payload: { recordId: string } } }>(api, 'SELECT event FROM automation_runs WHERE automation_id = $1', [automation.id]);
      expect(runs.map((run) => run.event.payload.recordId).sort()).toEqual(items.map((item) => item.id).sort());
    });
  });

  describe('update', () => {
    it('changes every record, in order, and bumps each version', async () => {
      const [a, b] = await createBatch(['U1', 'U2']);
      const response = await client.patch(records, {
        records: [
          { id: b.id, data: { status: 'done' }, expectedVersion: 1 },
          { id: a.id, data: { title: 'U1 renamed' } },
        ],
      });
      expect(response.status).toBe(200);
      const { items } = (await response.json()) as { items: Item[] };
      expect(items.map((item) => [item.id, item.title, item.data['status']])).toEqual([
        [b.id, 'U2', 'done'],
        [a.id, 'U1 renamed', undefined],
      ]);
      const versions = await queryDatabase<{ version: number }>(api, 'SELECT version FROM records WHERE id = ANY($1::uuid[])', [[a.id, b.id]]);
      expect(versions.map((row) => row.version)).toEqual([2, 2]);
    });

    it('reports a hidden, a missing or a repeated record by its path, as not found, and writes nothing', async () => {
      const [a] = await createBatch(['V1']);
      const error = await expectError(
        await client.patch(records, {
          records: [
            { id: a.id, data: { notes: 'changed' } },
            { id: hiddenId, data: { notes: 'changed' } },
            { id: MISSING_ID, data: { notes: 'changed' } },
            { id: a.id, data: { notes: 'again' } },
          ],
        }),
        400,
        'validation_failed',
      );
      expect(error.details?.map((detail) => [detail.field, detail.code])).toEqual([
        ['records[1].id', 'not_found'],
        ['records[2].id', 'not_found'],
        ['records[3].id', 'duplicate'],
      ]);
      expect(JSON.stringify(error)).not.toMatch(/forbidden/);
      const [row] = await queryDatabase<{ data: Record<string, unknown> }>(api, 'SELECT data FROM records WHERE id = $1', [a.id]);
      expect(row.data['notes']).toBeUndefined();
    });

    it('fails the whole batch with 412 naming each stale record', async () => {
      const [a, b, c] = await createBatch(['W1', 'W2', 'W3']);
      const error = await expectError(
        await client.patch(records, {
          records: [
            { id: a.id, data: { notes: 'x' }, expectedVersion: 1 },
            { id: b.id, data: { notes: 'x' }, expectedVersion: 3 },
            { id: c.id, data: { notes: 'x' }, expectedVersion: 0 },
          ],
        }),
        412,
        'precondition_failed',
      );
      expect(error.details?.map((detail) => detail.field)).toEqual(['records[1].expectedVersion', 'records[2].expectedVersion']);
      const rows = await queryDatabase<{ version: number }>(api, 'SELECT version FROM records WHERE id = ANY($1::uuid[])', [[a.id, b.id, c.id]]);
      expect(rows.map((row) => row.version)).toEqual([1, 1, 1]);
    });

    it('names a bad value by its path', async () => {
      const [a, b] = await createBatch(['X1', 'X2']);
      const error = await expectError(
        await client.patch(records, { records: [{ id: a.id, data: { notes: 'fine' } }, { id: b.id, data: { amount: 'many' } }] }),
        400,
        'validation_failed',
      );
      expect(error.details?.map((detail) => detail.field)).toEqual(['records[1].data.amount']);
    });
  });

  describe('records.deleteMany', () => {
    it('soft-deletes every record, or none when one is hidden or missing', async () => {
      const [a, b] = await createBatch(['D1', 'D2']);
      const refused = await api.request('/rpc/records.deleteMany', {
        method: 'POST',
        json: { ids: [a.id, hiddenId, MISSING_ID] },
        token: org.owner.session,
        organizationId: org.organizationId,
      });
      const error = await expectError(refused, 400, 'validation_failed');
      expect(error.details?.map((detail) => [detail.field, detail.code])).toEqual([
        ['ids[1]', 'not_found'],
        ['ids[2]', 'not_found'],
      ]);
      const before = await countRecords();
      const deleted = await org.rpc<{ items: Array<{ id: string; deleted: boolean }> }>('records.deleteMany', { ids: [a.id, b.id] });
      expect(deleted.items.map((item) => item.id)).toEqual([a.id, b.id]);
      expect(await countRecords()).toBe(before - 2);
    });
  });
});
