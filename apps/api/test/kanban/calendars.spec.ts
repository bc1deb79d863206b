import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, type OrganizationWithKey } from '../support/public-api-fixtures';

interface Page {
  items: Array<{ id: string; title: string }>;
  nextCursor: string | null;
}

let api: TestApi;
let org: OrganizationWithKey;

const newRecord = (title: string, data: Record<string, unknown>) => org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title, ...data } });
const titles = (page: Page) => page.items.map((record) => record.title);

beforeAll(async () => {
  api = await startTestApi();
  org = await createOrganizationWithKey(api);
  for (const [key, type] of [
    ['starts', 'DATETIME'],
    ['ends', 'DATETIME'],
    ['day', 'DATE'],
  ] as const) {
    await org.rpc('dataModels.fields.create', { model: org.modelKey, key, name: key, type, indexed: key === 'starts' });
  }
  await newRecord('Before', { starts: '2031-03-31T23:00:00Z' });
  await newRecord('First', { starts: '2031-04-01T09:00:00Z', day: '2031-04-01' });
  await newRecord('Second', { starts: '2031-04-02T09:00:00Z', ends: '2031-04-02T10:00:00Z', day: '2031-04-02' });
  await newRecord('Spanning', { starts: '2031-03-30T09:00:00Z', ends: '2031-04-01T10:00:00Z' });
  await newRecord('After', { starts: '2031-04-03T00:00:00Z', day: '2031-04-03' });
});
afterAll(() => api.close());

describe('calendars over a model', () => {
  const window = { from: '2031-04-01T00:00:00Z', to: '2031-04-03T00:00:00Z' };

  it('lists the records starting in [from, to), by start, in keyset pages', async () => {
    const calendar = await org.rpc<{ id: string }>('calendars.create', { name: 'Starts', modelKey: org.modelKey, startFieldKey: 'starts' });
    const first = await org.rpc<Page>('calendars.events', { id: calendar.id, ...window, limit: 1 });
    expect(titles(first)).toEqual(['First']);
    const second = await org.rpc<Page>('calendars.events', { id: calendar.id, ...window, limit: 1, cursor: first.nextCursor });
    expect(titles(second)).toEqual(['Second']);
    expect(second.nextCursor).toBeNull();
  });

  it('with an end field, lists what overlaps the window', async () => {
    const calendar = await org.rpc<{ id: string }>('calendars.create', { name: 'Spans', modelKey: org.modelKey, startFieldKey: 'starts', endFieldKey: 'ends' });
    expect(titles(await org.rpc<Page>('calendars.events', { id: calendar.id, ...window }))).toEqual(['Spanning', 'First', 'Second']);
  });

  it('a DATE calendar compares whole days, the day of `to` included', async () => {
    const calendar = await org.rpc<{ id: string }>('calendars.create', { name: 'Days', modelKey: org.modelKey, startFieldKey: 'day' });
    expect(titles(await org.rpc<Page>('calendars.events', { id: calendar.id, from: '2031-04-01T00:00:00Z', to: '2031-04-02T00:00:00Z' }))).toEqual([
      'First',
      'Second',
    ]);
  });

  it('refuses a window bound no instant can hold (a leap second) with a 400, not a failure', async () => {
    const calendar = await org.rpc<{ id: string }>('calendars.create', { name: 'Leap', modelKey: org.modelKey, startFieldKey: 'day' });
    const auth = { token: org.owner.session, organizationId: org.organizationId };
    const leap = await api.rpc('calendars.events', { id: calendar.id, from: '2030-12-31T23:59:60Z', to: '2031-04-02T00:00:00Z' }, auth);
    expect(leap).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ field: 'from', code: 'invalid_format' }] } } });
  });

  it('refuses a start field that is not a DATETIME or DATE, and an end field of another type', async () => {
    const auth = { token: org.owner.session, organizationId: org.organizationId };
    const notDate = await api.rpc('calendars.create', { name: 'Bad', modelKey: org.modelKey, startFieldKey: 'notes' }, auth);
    expect(notDate).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ field: 'startFieldKey', code: 'invalid_type' }] } } });
    const mixed = await api.rpc('calendars.create', { name: 'Bad', modelKey: org.modelKey, startFieldKey: 'starts', endFieldKey: 'day' }, auth);
    expect(mixed).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ field: 'endFieldKey', code: 'invalid_type' }] } } });
  });

  it('a member without data-models.manage cannot create one, but can read its events', async () => {
    const calendar = await org.rpc<{ id: string }>('calendars.create', { name: 'Shared', modelKey: org.modelKey, startFieldKey: 'starts' });
    const reader = await org.addMember(['member']);
    const refused = await api.rpc('calendars.create', { name: 'Mine', modelKey: org.modelKey, startFieldKey: 'starts' }, { token: reader.session, organizationId: org.organizationId });
    expect(refused.status).toBe(403);
    expect(titles(await org.rpc<Page>('calendars.events', { id: calendar.id, ...window }, reader.session))).toEqual(['First', 'Second']);
  });
});
