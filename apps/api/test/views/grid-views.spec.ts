import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, type Member, type OrganizationWithKey } from '../support/public-api-fixtures';

interface GridView {
  id: string;
  modelKey: string;
  name: string;
  shared: boolean;
  createdBy: string;
  state: Record<string, unknown>;
}

let api: TestApi;
let org: OrganizationWithKey;
let member: Member;

const state = (overrides: Record<string, unknown> = {}) => ({ sort: '-createdAt', limit: 25, hidden: [], order: [], widths: {}, ...overrides });
const names = (views: { items: GridView[] }) => views.items.map((view) => view.name);
const asMember = { get token() { return member.session; }, get organizationId() { return org.organizationId; } };

beforeAll(async () => {
  api = await startTestApi();
  org = await createOrganizationWithKey(api);
  member = await org.addMember(['member']);
});
afterAll(() => api.close());

describe('saved grid views', () => {
  it('saves a view with its whole state and lists it for its model', async () => {
    const saved = state({ q: 'report', filter: { field: 'status', op: 'eq', value: 'open' }, sort: 'amount,-createdAt', hidden: ['notes'], order: ['amount', 'status'], widths: { amount: 120 } });
    const view = await org.rpc<GridView>('views.grids.create', { modelKey: org.modelKey, name: 'Open reports', state: saved });
    expect(view).toMatchObject({ modelKey: org.modelKey, name: 'Open reports', shared: false, state: saved });
    const listed = await org.rpc<{ items: GridView[] }>('views.grids.list', { modelKey: org.modelKey });
    expect(listed.items.find((item) => item.id === view.id)?.state).toEqual(saved);
  });

  it("keeps a personal view from everyone but its owner: not listed, and a 404 to change", async () => {
    const mine = await org.rpc<GridView>('views.grids.create', { modelKey: org.modelKey, name: 'Owner only', state: state() });
    expect(names(await org.rpc('views.grids.list', { modelKey: org.modelKey }, member.session))).not.toContain('Owner only');
    const renamed = await api.rpc('views.grids.update', { id: mine.id, name: 'Taken' }, asMember);
    expect(renamed).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await api.rpc('views.grids.delete', { id: mine.id }, asMember)).status).toBe(404);
  });

  it('shows a shared view to every member, who may not change it without data-models.manage', async () => {
    const shared = await org.rpc<GridView>('views.grids.create', { modelKey: org.modelKey, name: 'Team view', state: state(), shared: true });
    expect(names(await org.rpc('views.grids.list', { modelKey: org.modelKey }, member.session))).toContain('Team view');
    const changed = await api.rpc('views.grids.update', { id: shared.id, name: 'Mine now' }, asMember);
    expect(changed).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    expect((await api.rpc('views.grids.delete', { id: shared.id }, asMember)).status).toBe(403);
    await org.rpc('views.grids.delete', { id: shared.id });
    expect(names(await org.rpc('views.grids.list', { modelKey: org.modelKey }, member.session))).not.toContain('Team view');
  });

  it('sharing needs data-models.manage, at creation and later', async () => {
    const created = await api.rpc('views.grids.create', { modelKey: org.modelKey, name: 'Shared by a member', state: state(), shared: true }, asMember);
    expect(created.status).toBe(403);
    const own = await org.rpc<GridView>('views.grids.create', { modelKey: org.modelKey, name: 'Member own', state: state() }, member.session);
    expect((await api.rpc('views.grids.update', { id: own.id, shared: true }, asMember)).status).toBe(403);
    const renamed = await org.rpc<GridView>('views.grids.update', { id: own.id, name: 'Member renamed', state: state({ limit: 50 }) }, member.session);
    expect(renamed).toMatchObject({ name: 'Member renamed', shared: false, state: { limit: 50 } });
  });

  it('an admin who takes a shared view back makes it their own, hidden from the rest', async () => {
    const shared = await org.rpc<GridView>('views.grids.create', { modelKey: org.modelKey, name: 'Was shared', state: state(), shared: true });
    const admin = await org.addMember(['admin']);
    const personal = await org.rpc<GridView>('views.grids.update', { id: shared.id, shared: false }, admin.session);
    expect(personal.shared).toBe(false);
    expect(personal.createdBy).not.toBe(shared.createdBy);
    expect(names(await org.rpc('views.grids.list', { modelKey: org.modelKey }, admin.session))).toContain('Was shared');
    expect(names(await org.rpc('views.grids.list', { modelKey: org.modelKey }))).not.toContain('Was shared');
  });

  it('refuses a state outside its limits, naming the property', async () => {
    const auth = { token: org.owner.session, organizationId: org.organizationId };
    for (const bad of [state({ limit: 1000 }), state({ widths: { amount: 5 } }), state({ hidden: ['1bad'] }), { ...state(), extra: true }]) {
      const answer = await api.rpc('views.grids.create', { modelKey: org.modelKey, name: 'Bad', state: bad }, auth);
      expect(answer).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
      expect(JSON.stringify(answer.body)).toContain('state');
    }
  });

  it('refuses a filter or sort the model cannot take, as the records list would, under state', async () => {
    const auth = { token: org.owner.session, organizationId: org.organizationId };
    const badFilter = await api.rpc('views.grids.create', { modelKey: org.modelKey, name: 'Bad', state: state({ filter: { field: 'nope', op: 'eq', value: 1 } }) }, auth);
    expect(badFilter).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ field: expect.stringMatching(/^state\.filter/) }] } } });
    const badSort = await api.rpc('views.grids.create', { modelKey: org.modelKey, name: 'Bad', state: state({ sort: 'nope' }) }, auth);
    expect(badSort).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ field: expect.stringMatching(/^state\.sort/) }] } } });
    const noModel = await api.rpc('views.grids.create', { modelKey: 'missing_model', name: 'Bad', state: state() }, auth);
    expect(noModel.status).toBe(404);
  });

  it('keeps a model to 100 views of each person and 100 shared ones, so one answer lists them all', async () => {
    const counter = await org.addMember(['member']);
    for (let index = 0; index < 100; index += 1) {
      await org.rpc('views.grids.create', { modelKey: org.modelKey, name: `Mine ${index}`, state: state() }, counter.session);
    }
    const refused = await api.rpc('views.grids.create', { modelKey: org.modelKey, name: 'One more', state: state() }, { token: counter.session, organizationId: org.organizationId });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    // Another person's views are theirs to count.
    await org.rpc('views.grids.create', { modelKey: org.modelKey, name: 'Owner still may', state: state() });
  });
});
