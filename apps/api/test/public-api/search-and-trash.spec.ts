import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import {
  ISO_UTC,
  createOrganizationWithKey,
  expectError,
  publicApi,
  type OrganizationWithKey,
  type PublicApiClient,
} from '../support/public-api-fixtures';

interface Item {
  id: string;
  title: string;
  deletedAt?: string;
  deletedBy?: string | null;
}

interface Page {
  items: Item[];
  nextCursor: string | null;
}

/** `q=` on the records list, the trash (`deleted=only`) and POST /records/{id}/restore. */
describe('Search and the trash over /api/v1', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let owner: PublicApiClient;
  let ownerId: string;
  let reader: PublicApiClient;
  let financeRoleId: string;
  const records = '/models/tasks/records';

  const page = async (client: PublicApiClient, query: string): Promise<Page> => {
    const response = await client.get(`${records}?${query}`);
    expect({ query, status: response.status }).toEqual({ query, status: 200 });
    return (await response.json()) as Page;
  };
  const titles = (list: Page) => list.items.map((item) => item.title);
  const create = async (data: Record<string, unknown>): Promise<Item> => {
    const response = await owner.post(records, { data });
    expect(response.status).toBe(201);
    return (await response.json()) as Item;
  };

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '10000' });
    org = await createOrganizationWithKey(api);
    owner = publicApi(api, org.key.token);
    ownerId = org.owner.user.sub;
    reader = publicApi(api, (await org.createKey({ name: 'Reader', fullAccess: false, permissions: ['records.read'] })).token);
    financeRoleId = (await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] })).id;
    await create({ title: 'Alpha 50% off', notes: 'first' });
    await create({ title: 'Alpha 50 percent', notes: 'second', status: 'open' });
    await create({ title: 'Beta', notes: 'under_score \\ back' });
    await create({ title: 'Gamma', notes: 'ALPHA in the notes', status: 'open' });
    const hidden = await create({ title: 'Alpha hidden', notes: 'secret' });
    await org.rpc('records.setAccess', { id: hidden.id, roleIds: [financeRoleId] });
  }, 60_000);
  afterAll(() => api.close());

  describe('q=', () => {
    it('finds the text in titles and text fields, in any case, and never a record hidden from the caller', async () => {
      expect(titles(await page(owner, 'q=alpha&sort=title'))).toEqual(['Alpha 50 percent', 'Alpha 50% off', 'Gamma']);
      expect(titles(await page(owner, 'q=UNDER'))).toEqual(['Beta']);
      expect(titles(await page(owner, 'q=secret'))).toEqual([]);
    });

    it('takes %, _ and \\ literally', async () => {
      expect(titles(await page(owner, `q=${encodeURIComponent('50%')}`))).toEqual(['Alpha 50% off']);
      expect(titles(await page(owner, `q=${encodeURIComponent('%')}`))).toEqual(['Alpha 50% off']);
      expect(titles(await page(owner, 'q=r_s'))).toEqual(['Beta']);
      expect(titles(await page(owner, 'q=e_s'))).toEqual([]);
      expect(titles(await page(owner, `q=${encodeURIComponent('\\ b')}`))).toEqual(['Beta']);
      expect(titles(await page(owner, `q=${encodeURIComponent("'; SELECT 1; --")}`))).toEqual([]);
    });

    it('combines with a filter, and pages with cursors bound to the search', async () => {
      const filter = encodeURIComponent(JSON.stringify({ field: 'status', op: 'eq', value: 'open' }));
      expect(titles(await page(owner, `q=alpha&filter=${filter}&sort=title`))).toEqual(['Alpha 50 percent', 'Gamma']);
      const first = await page(owner, 'q=alpha&sort=title&limit=2');
      expect(titles(first)).toEqual(['Alpha 50 percent', 'Alpha 50% off']);
      const second = await page(owner, `q=alpha&sort=title&limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
      expect(second).toEqual({ items: [expect.objectContaining({ title: 'Gamma' })], nextCursor: null });
      await expectError(await owner.get(`${records}?q=beta&sort=title&limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`), 400, 'validation_failed');
      await expectError(await owner.get(`${records}?sort=title&limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`), 400, 'validation_failed');
    });

    it('takes 1 to 200 characters', async () => {
      await expectError(await owner.get(`${records}?q=`), 400, 'validation_failed');
      await expectError(await owner.get(`${records}?q=${'x'.repeat(201)}`), 400, 'validation_failed');
      expect(titles(await page(owner, `q=${'x'.repeat(200)}`))).toEqual([]);
    });
  });

  describe('deleted=only and restore', () => {
    let gone: Item;
    let older: Item;
    let restricted: Item;
    let finance: PublicApiClient;
    let financeId: string;

    beforeAll(async () => {
      older = await create({ title: 'Deleted first' });
      gone = await create({ title: 'Deleted last' });
      restricted = await create({ title: 'Deleted and restricted' });
      await org.rpc('records.setAccess', { id: restricted.id, roleIds: [financeRoleId] });
      const financeMember = await org.addMember(['member', 'finance']);
      finance = publicApi(api, (await org.createKey({ name: 'Finance' }, financeMember.session)).token);
      financeId = financeMember.user.sub;
      expect((await owner.delete(`/records/${older.id}`)).status).toBe(200);
      expect((await finance.delete(`/records/${restricted.id}`)).status).toBe(200);
      expect((await owner.delete(`/records/${gone.id}`)).status).toBe(200);
    });

    it('lists the trash newest deletion first, with deletedAt and deletedBy, in cursor pages; hidden records stay hidden', async () => {
      const trash = await page(owner, 'deleted=only');
      expect(trash.items.map(({ title, deletedBy }) => [title, deletedBy])).toEqual([
        ['Deleted last', ownerId],
        ['Deleted first', ownerId],
      ]);
      expect(trash.items[0].deletedAt).toMatch(ISO_UTC);
      expect((await page(finance, 'deleted=only')).items.map(({ title, deletedBy }) => [title, deletedBy])).toEqual([
        ['Deleted last', ownerId],
        ['Deleted and restricted', financeId],
        ['Deleted first', ownerId],
      ]);
      const first = await page(owner, 'deleted=only&limit=1');
      const second = await page(owner, `deleted=only&limit=1&cursor=${encodeURIComponent(first.nextCursor!)}`);
      expect([...titles(first), ...titles(second)]).toEqual(['Deleted last', 'Deleted first']);
      expect(second.nextCursor).toBeNull();
      expect(titles(await page(owner, 'deleted=only&q=FIRST'))).toEqual(['Deleted first']);
      expect(titles(await page(owner, 'q=deleted'))).toEqual([]);
      await expectError(await owner.get(`${records}?deleted=yes`), 400, 'validation_failed');
    });

    it('is refused (403) to a caller without records.delete', async () => {
      await expectError(await reader.get(`${records}?deleted=only`), 403, 'forbidden');
      expect((await reader.get(records)).status).toBe(200);
    });

    it('restores a deleted record (200), emitting record-updated; 409 for a live one, 404 for a hidden or unknown one', async () => {
      const events: EventEnvelope[] = [];
      const unsubscribe = api.runtime.bus.subscribe('data-models.*', (event) => void events.push(event));
      try {
        const response = await owner.post(`/records/${older.id}/restore`, undefined, { 'X-Request-Id': 'rest-restore-1' });
        expect(response.status).toBe(200);
        const restored = (await response.json()) as Item & { updatedBy: string };
        expect(restored).toMatchObject({ id: older.id, title: 'Deleted first', updatedBy: ownerId });
        expect(restored).not.toHaveProperty('deletedAt');
        await api.runtime.bus.idle();
        expect(events.map((event) => [event.type, event.correlationId])).toEqual([['data-models.record-updated', 'rest-restore-1']]);
        expect(events[0]).toMatchObject({
          subscriptionAliases: ['data-models.tasks.record-updated'],
          payload: { modelKey: 'tasks', recordId: older.id, changedFields: [], record: restored },
        });
      } finally {
        unsubscribe();
      }
      expect(titles(await page(owner, 'deleted=only'))).toEqual(['Deleted last']);
      expect((await owner.get(`/records/${older.id}`)).status).toBe(200);

      await expectError(await owner.post(`/records/${older.id}/restore`, undefined), 409, 'conflict');
      await expectError(await owner.post(`/records/${restricted.id}/restore`, undefined), 404, 'not_found');
      await expectError(await owner.post('/records/0190aaaa-0000-7000-8000-00000000dead/restore', undefined), 404, 'not_found');
      await expectError(await reader.post(`/records/${gone.id}/restore`, undefined), 403, 'forbidden');
    });
  });
});
