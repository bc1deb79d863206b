import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, publicApi, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';

interface RecordBody {
  id: string;
  title: string;
}

/** CONTRACT "API key": a key is pinned to one organization; nothing of another is reachable, or even shown to exist. */
describe('/api/v1 cross-tenant isolation', () => {
  let api: TestApi;
  let alpha: OrganizationWithKey;
  let beta: OrganizationWithKey;
  let alphaClient: PublicApiClient;
  let betaClient: PublicApiClient;
  let alphaRecord: RecordBody;
  let betaRecord: RecordBody;
  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    // The same model key in both organizations.
    alpha = await createOrganizationWithKey(api, { modelKey: 'tasks', name: 'Alpha' });
    beta = await createOrganizationWithKey(api, { modelKey: 'tasks', name: 'Beta' });
    await beta.rpc('dataModels.create', { key: 'beta_only', name: 'Beta only' });
    alphaClient = publicApi(api, alpha.key.token);
    betaClient = publicApi(api, beta.key.token);
    alphaRecord = (await (await alphaClient.post('/models/tasks/records', { data: { title: 'Alpha task' } })).json()) as RecordBody;
    betaRecord = (await (await betaClient.post('/models/tasks/records', { data: { title: 'Beta task' } })).json()) as RecordBody;
  });
  afterAll(() => api.close());

  it("acts in the key's own organization", async () => {
    const me = (await (await alphaClient.get('/me')).json()) as { organization: { id: string; name: string } };
    expect(me.organization).toMatchObject({ id: alpha.organizationId, name: 'Alpha' });
  });

  it("lists only the key's organization's models", async () => {
    const alphaModels = (await (await alphaClient.get('/models')).json()) as { items: Array<{ key: string }> };
    expect(alphaModels.items.map((model) => model.key)).toEqual(['tasks']);
    const betaModels = (await (await betaClient.get('/models')).json()) as { items: Array<{ key: string }> };
    expect(betaModels.items.map((model) => model.key)).toEqual(['beta_only', 'tasks']);
  });

  it("is 404 for another organization's model, its fields and its records", async () => {
    await expectError(await alphaClient.get('/models/beta_only'), 404, 'not_found');
    await expectError(await alphaClient.get('/models/beta_only/fields'), 404, 'not_found');
    await expectError(await alphaClient.get('/models/beta_only/records'), 404, 'not_found');
    await expectError(await alphaClient.post('/models/beta_only/records', { data: { title: 'Intruder' } }), 404, 'not_found');
    expect((await (await betaClient.get('/models/beta_only/records')).json()) as { items: unknown[] }).toMatchObject({ items: [] });
  });

  it("a model key both organizations use returns only the key's own data", async () => {
    const alphaPage = (await (await alphaClient.get('/models/tasks/records')).json()) as { items: RecordBody[] };
    expect(alphaPage.items.map((record) => record.id)).toEqual([alphaRecord.id]);
    const betaPage = (await (await betaClient.get('/models/tasks/records')).json()) as { items: RecordBody[] };
    expect(betaPage.items.map((record) => record.id)).toEqual([betaRecord.id]);

    const filter = encodeURIComponent(JSON.stringify({ field: 'title', op: 'eq', value: 'Beta task' }));
    expect(((await (await alphaClient.get(`/models/tasks/records?filter=${filter}`)).json()) as { items: unknown[] }).items).toEqual([]);
  });

  it("is 404 for another organization's record id on GET, PATCH and DELETE, and leaves it untouched", async () => {
    await expectError(await alphaClient.get(`/records/${betaRecord.id}`), 404, 'not_found');
    await expectError(await alphaClient.patch(`/records/${betaRecord.id}`, { data: { title: 'Hijacked' } }), 404, 'not_found');
    await expectError(await alphaClient.delete(`/records/${betaRecord.id}`), 404, 'not_found');
    await expectError(await alphaClient.delete(`/records/${betaRecord.id}?hard=true`), 404, 'not_found');

    const untouched = (await (await betaClient.get(`/records/${betaRecord.id}`)).json()) as RecordBody;
    expect(untouched.title).toBe('Beta task');
  });

  it("a field added to one organization's model does not appear in the other's", async () => {
    await beta.rpc('dataModels.fields.create', { model: 'tasks', key: 'beta_secret', name: 'Secret', type: 'TEXT' });
    const alphaFields = (await (await alphaClient.get('/models/tasks/fields')).json()) as { items: Array<{ key: string }> };
    expect(alphaFields.items.map((field) => field.key)).not.toContain('beta_secret');
    const betaFields = (await (await betaClient.get('/models/tasks/fields')).json()) as { items: Array<{ key: string }> };
    expect(betaFields.items.map((field) => field.key)).toContain('beta_secret');
    await expectError(await alphaClient.post('/models/tasks/records', { data: { title: 'x', beta_secret: 'y' } }), 400, 'validation_failed');
  });

  it("a key of a member of both organizations still acts only in the key's organization", async () => {
    const dual = await alpha.addMember(['member'], 'dual');
    const { token: betaInvite } = await beta.rpc<{ token: string }>('organizations.invite', { email: dual.user.email, roleKeys: ['member'] });
    await api.rpc('organizations.acceptInvite', { token: betaInvite }, { token: dual.session });

    const alphaKeyOfDual = publicApi(api, (await alpha.createKey({ name: 'dual in alpha' }, dual.session)).token);
    expect((await alphaKeyOfDual.get(`/records/${alphaRecord.id}`)).status).toBe(200);
    await expectError(await alphaKeyOfDual.get(`/records/${betaRecord.id}`), 404, 'not_found');
    await expectError(await alphaKeyOfDual.get('/models/beta_only'), 404, 'not_found');
  });
});
