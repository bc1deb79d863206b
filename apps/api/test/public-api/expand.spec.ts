import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, publicApi, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';

interface Item {
  id: string;
  title: string;
  data: Record<string, unknown>;
}

/** `expand=` on GET /records/{id} and the records list: related titles, typed in the served document. */
describe('expand over /api/v1', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let owner: PublicApiClient;
  let reader: PublicApiClient;
  let open: Item;
  let hidden: Item;
  let deleted: Item;
  let project: Item;

  const created = async (path: string, data: Record<string, unknown>): Promise<Item> => {
    const response = await owner.post(path, { data });
    expect(response.status).toBe(201);
    return (await response.json()) as Item;
  };

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '10000' });
    org = await createOrganizationWithKey(api);
    owner = publicApi(api, org.key.token);
    reader = publicApi(api, (await org.createKey({ name: 'Reader', fullAccess: false, permissions: ['records.read', 'data-models.read'] })).token);
    const financeRoleId = (await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] })).id;
    await org.rpc('dataModels.create', { key: 'projects', name: 'Projects' });
    await org.rpc('dataModels.fields.create', { model: 'projects', key: 'lead', name: 'Lead task', type: 'RELATION', config: { targetModel: 'tasks' } });
    await org.rpc('dataModels.fields.create', {
      model: 'projects',
      key: 'steps',
      name: 'Steps',
      type: 'RELATION',
      required: true,
      config: { targetModel: 'tasks', multiple: true },
    });
    open = await created('/models/tasks/records', { title: 'Open task' });
    hidden = await created('/models/tasks/records', { title: 'Hidden task' });
    deleted = await created('/models/tasks/records', { title: 'Deleted task' });
    project = await created('/models/projects/records', { title: 'Launch', lead: hidden.id, steps: [open.id, hidden.id, deleted.id] });
    await created('/models/projects/records', { title: 'Other', steps: [open.id] });
    await org.rpc('records.setAccess', { id: hidden.id, roleIds: [financeRoleId] });
    expect((await owner.delete(`/records/${deleted.id}`)).status).toBe(200);
  }, 60_000);
  afterAll(() => api.close());

  it('answers a related record the reader may not see, or that is deleted, with its id alone', async () => {
    const response = await reader.get(`/records/${project.id}?expand=lead,steps`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Item).data).toEqual({
      title: 'Launch',
      lead: { id: hidden.id },
      steps: [{ id: open.id, title: 'Open task' }, { id: hidden.id }, { id: deleted.id }],
    });
    const plain = (await (await reader.get(`/records/${project.id}`)).json()) as Item;
    expect(plain.data).toEqual({ title: 'Launch', lead: hidden.id, steps: [open.id, hidden.id, deleted.id] });
  });

  it('expands every record of a list page, and a relation left empty stays empty', async () => {
    const response = await reader.get('/models/projects/records?sort=title&expand=steps,lead');
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: Item[] };
    expect(page.items.map((item) => item.data)).toEqual([
      { title: 'Launch', lead: { id: hidden.id }, steps: [{ id: open.id, title: 'Open task' }, { id: hidden.id }, { id: deleted.id }] },
      { title: 'Other', steps: [{ id: open.id, title: 'Open task' }] },
    ]);
  });

  it('gives a new entity tag when a related title changes', async () => {
    const path = `/records/${project.id}?expand=steps`;
    const before = await reader.get(path);
    const etag = before.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    expect((await reader.get(path, { 'If-None-Match': etag })).status).toBe(304);
    expect((await owner.patch(`/records/${open.id}`, { data: { title: 'Open task, renamed' } })).status).toBe(200);
    const after = await reader.get(path, { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(((await after.json()) as Item).data['steps']).toEqual([{ id: open.id, title: 'Open task, renamed' }, { id: hidden.id }, { id: deleted.id }]);
  });

  it.each([
    ['nope', 'Unknown field "nope"'],
    ['title', 'Field "title" is not a RELATION field'],
  ])('refuses expand=%s with a 400 naming the key', async (expand, message) => {
    for (const path of [`/records/${project.id}?expand=${expand}`, `/models/projects/records?expand=lead,${expand}`]) {
      const error = await expectError(await reader.get(path), 400, 'validation_failed');
      expect(error.details).toEqual([expect.objectContaining({ field: 'expand', message })]);
    }
  });
});
