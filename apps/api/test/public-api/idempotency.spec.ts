import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@mrp/platform';
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

/** Status, the headers a retry must see again, and the body as text: what "the same answer" means. */
async function answerOf(response: Response) {
  return {
    status: response.status,
    location: response.headers.get('location'),
    etag: response.headers.get('etag'),
    body: await response.text(),
  };
}

async function recordsTitled(api: TestApi, title: string): Promise<number> {
  const [row] = await queryDatabase<{ count: number }>(api, 'SELECT count(*)::int AS count FROM records WHERE title = $1', [title]);
  return row.count;
}

/** Idempotency-Key on POST, PATCH and DELETE (Stripe's rules; decisions 90-92). */
describe('/api/v1 Idempotency-Key', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let records: string;
  const events: EventEnvelope[] = [];
  let unsubscribe: () => void;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api, { name: 'Idempotency Inc' });
    client = publicApi(api, org.key.token);
    records = `/models/${org.modelKey}/records`;
    unsubscribe = api.runtime.bus.subscribe('data-models.*', (event) => void events.push(event));
  });
  afterAll(async () => {
    unsubscribe?.();
    await api?.close();
  });

  async function eventsOf(type: string, recordId: string): Promise<EventEnvelope[]> {
    await api.runtime.bus.idle();
    return events.filter((event) => event.type === type && (event.payload as { recordId?: string }).recordId === recordId);
  }

  describe('a retry of the same request', () => {
    it('POST: gets the same status, body, Location and ETag, marked Idempotent-Replayed; one record, one event', async () => {
      const key = randomUUID();
      const body = { data: { title: 'Replayed create', status: 'open' } };
      const first = await client.post(records, body, { 'Idempotency-Key': key });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const firstAnswer = await answerOf(first);
      expect(firstAnswer.status).toBe(201);

      const retry = await client.post(records, body, { 'Idempotency-Key': key });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await answerOf(retry)).toEqual(firstAnswer);

      const created = JSON.parse(firstAnswer.body) as RecordBody;
      expect(await recordsTitled(api, 'Replayed create')).toBe(1);
      expect(await eventsOf('data-models.record-created', created.id)).toHaveLength(1);
    });

    it('PATCH and DELETE: replayed without a second write or event', async () => {
      const record = (await (await client.post(records, { data: { title: 'To change' } })).json()) as RecordBody;
      const patchKey = randomUUID();
      const firstPatch = await answerOf(await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'Idempotency-Key': patchKey }));
      const retriedPatch = await client.patch(`/records/${record.id}`, { data: { amount: 1 } }, { 'Idempotency-Key': patchKey });
      expect(retriedPatch.headers.get('idempotent-replayed')).toBe('true');
      expect(await answerOf(retriedPatch)).toEqual(firstPatch);
      const [{ version }] = await queryDatabase<{ version: number }>(api, 'SELECT version FROM records WHERE id = $1', [record.id]);
      expect(version).toBe(2);
      expect(await eventsOf('data-models.record-updated', record.id)).toHaveLength(1);

      const deleteKey = randomUUID();
      const firstDelete = await answerOf(await client.delete(`/records/${record.id}`, { 'Idempotency-Key': deleteKey }));
      expect(firstDelete).toMatchObject({ status: 200, body: JSON.stringify({ id: record.id, deleted: true, hard: false }) });
      // Without the key the record is gone (404); with it, the first answer comes back.
      await expectError(await client.delete(`/records/${record.id}`), 404, 'not_found');
      const retriedDelete = await client.delete(`/records/${record.id}`, { 'Idempotency-Key': deleteKey });
      expect(retriedDelete.headers.get('idempotent-replayed')).toBe('true');
      expect(await answerOf(retriedDelete)).toEqual(firstDelete);
      expect(await eventsOf('data-models.record-deleted', record.id)).toHaveLength(1);
    });

    it('keeps a refusal the procedure decided (404) and replays it, with the first request id', async () => {
      const key = randomUUID();
      const missing = '01900000-0000-7000-8000-000000000000';
      const first = await client.patch(`/records/${missing}`, { data: { amount: 1 } }, { 'Idempotency-Key': key });
      const firstError = await expectError(first, 404, 'not_found');
      const retry = await client.patch(`/records/${missing}`, { data: { amount: 1 } }, { 'Idempotency-Key': key });
      expect(retry.status).toBe(404);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(((await retry.json()) as { error: unknown }).error).toEqual(firstError);
    });

    it('keeps no refusal made before the procedure ran (a body failing the schema): the corrected request goes through', async () => {
      const key = randomUUID();
      await expectError(await client.post(records, { data: { title: 'Schema' }, extra: 1 }, { 'Idempotency-Key': key }), 400, 'validation_failed');
      const corrected = await client.post(records, { data: { title: 'Corrected' } }, { 'Idempotency-Key': key });
      expect(corrected.status).toBe(201);
      expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    });

    it('sends each request without a key through as usual', async () => {
      const body = { data: { title: 'No key' } };
      expect((await client.post(records, body)).status).toBe(201);
      expect((await client.post(records, body)).status).toBe(201);
      expect(await recordsTitled(api, 'No key')).toBe(2);
    });
  });

  describe('the same key for another request', () => {
    it('is a 409 idempotency_conflict for another body, another route or another If-Match, and writes nothing', async () => {
      const key = randomUUID();
      const created = (await (await client.post(records, { data: { title: 'Conflict A' } }, { 'Idempotency-Key': key })).json()) as RecordBody;
      await expectError(await client.post(records, { data: { title: 'Conflict B' } }, { 'Idempotency-Key': key }), 409, 'idempotency_conflict');
      await expectError(await client.patch(`/records/${created.id}`, { data: { title: 'Conflict A' } }, { 'Idempotency-Key': key }), 409, 'idempotency_conflict');
      await expectError(await client.delete(`/records/${created.id}`, { 'Idempotency-Key': key }), 409, 'idempotency_conflict');
      expect(await recordsTitled(api, 'Conflict B')).toBe(0);
      expect((await client.get(`/records/${created.id}`)).status).toBe(200);

      const deleteKey = randomUUID();
      await expectError(await client.delete(`/records/${created.id}`, { 'Idempotency-Key': deleteKey, 'If-Match': '"7"' }), 412, 'precondition_failed');
      await expectError(await client.delete(`/records/${created.id}`, { 'Idempotency-Key': deleteKey, 'If-Match': '"1"' }), 409, 'idempotency_conflict');
      await expectError(await client.delete(`/records/${created.id}?hard=true`, { 'Idempotency-Key': deleteKey, 'If-Match': '"7"' }), 409, 'idempotency_conflict');
      expect((await client.get(`/records/${created.id}`)).status).toBe(200);
    });

    it('is independent per API key: two keys of one owner may use the same Idempotency-Key', async () => {
      const second = publicApi(api, (await org.createKey({ name: 'Second' })).token);
      const key = randomUUID();
      const first = await client.post(records, { data: { title: 'Per key' } }, { 'Idempotency-Key': key });
      const other = await second.post(records, { data: { title: 'Per key' } }, { 'Idempotency-Key': key });
      expect([first.status, other.status]).toEqual([201, 201]);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expect(((await other.json()) as RecordBody).id).not.toBe(((await first.json()) as RecordBody).id);
      expect(await recordsTitled(api, 'Per key')).toBe(2);
    });
  });

  describe('concurrent requests with one key', () => {
    it('run the change once: the others get 409 request_in_progress or the replayed answer', async () => {
      const key = randomUUID();
      const body = { data: { title: 'Concurrent create' } };
      const responses = await Promise.all(Array.from({ length: 8 }, () => client.post(records, body, { 'Idempotency-Key': key })));
      const answers = await Promise.all(
        responses.map(async (response) => ({ status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as unknown })),
      );
      const created = answers.filter((answer) => answer.status === 201);
      expect(created.filter((answer) => answer.replayed === null)).toHaveLength(1);
      for (const answer of answers) {
        if (answer.status === 201) expect(answer.body).toEqual(created[0].body);
        else expect(answer).toMatchObject({ status: 409, body: { error: { code: 'request_in_progress' } } });
      }
      expect(await recordsTitled(api, 'Concurrent create')).toBe(1);
      expect(await eventsOf('data-models.record-created', (created[0].body as RecordBody).id)).toHaveLength(1);
    });
  });

  describe('the key itself', () => {
    it('may hold 255 characters; 256 or an empty key is a 400 and runs nothing', async () => {
      expect((await client.post(records, { data: { title: 'Long key' } }, { 'Idempotency-Key': 'k'.repeat(255) })).status).toBe(201);
      await expectError(await client.post(records, { data: { title: 'Too long key' } }, { 'Idempotency-Key': 'k'.repeat(256) }), 400, 'bad_request');
      await expectError(await client.post(records, { data: { title: 'Empty key' } }, { 'Idempotency-Key': '' }), 400, 'bad_request');
      expect(await recordsTitled(api, 'Too long key')).toBe(0);
      expect(await recordsTitled(api, 'Empty key')).toBe(0);
    });

    it('is ignored on a GET', async () => {
      const response = await client.get('/me', { 'Idempotency-Key': 'k'.repeat(300) });
      expect(response.status).toBe(200);
    });
  });

  describe('retention', () => {
    it('forgets an answer after 24 hours: the key runs again, and the prune task deletes expired answers', async () => {
      const key = randomUUID();
      const body = { data: { title: 'Expiring' } };
      expect((await client.post(records, body, { 'Idempotency-Key': key })).status).toBe(201);
      const [kept] = await queryDatabase<{ hours: number }>(
        api,
        `SELECT round(extract(epoch FROM expires_at - created_at) / 3600)::int AS hours FROM idempotent_requests WHERE key = $1`,
        [key],
      );
      expect(kept.hours).toBe(24);
      await queryDatabase(api, `UPDATE idempotent_requests SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);

      const again = await client.post(records, body, { 'Idempotency-Key': key });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(await recordsTitled(api, 'Expiring')).toBe(2);

      await queryDatabase(api, `UPDATE idempotent_requests SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);
      const task = api.runtime.tasks.find((candidate) => candidate.name === 'prune-idempotent-requests')!;
      expect(await task.run(api.runtime)).toBeGreaterThanOrEqual(1);
      expect(await queryDatabase(api, 'SELECT 1 FROM idempotent_requests WHERE key = $1', [key])).toEqual([]);
    });
  });
});
