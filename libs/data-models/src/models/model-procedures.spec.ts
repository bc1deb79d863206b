import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { FieldOutput, ModelOutput } from './schemas';

describe('Data Model procedures', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
  });
  afterAll(() => env.close());

  const admin = () => env.principal(org);

  describe('dataModels.create', () => {
    it('creates a model with its reserved, required TEXT title field', async () => {
      const model = await env.call<ModelOutput>('dataModels.create', { key: 'projects', name: 'Projects', description: 'All projects' }, admin());
      expect(model).toEqual({
        key: 'projects',
        name: 'Projects',
        description: 'All projects',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      });
      const fields = await env.call<{ items: FieldOutput[] }>('dataModels.fields.list', { model: 'projects' }, admin());
      expect(fields.items).toEqual([
        expect.objectContaining({ key: 'title', type: 'TEXT', required: true, position: 0, indexed: false, archivedAt: null }),
      ]);
      expect(fields.items[0].config).toEqual({ maxLength: 1000 });
    });

    it('refuses a key that is not snake_case', async () => {
      await expect(env.call('dataModels.create', { key: 'Bad-Key', name: 'x' }, admin())).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'key', code: 'invalid_format' })],
      });
    });

    it('refuses a key already used in the organization, even by an archived model', async () => {
      await env.call('dataModels.create', { key: 'dupe', name: 'Dupe' }, admin());
      await expect(env.call('dataModels.create', { key: 'dupe', name: 'Again' }, admin())).rejects.toMatchObject({ code: 'conflict' });
      await env.call('dataModels.archive', { key: 'dupe' }, admin());
      await expect(env.call('dataModels.create', { key: 'dupe', name: 'Again' }, admin())).rejects.toMatchObject({ code: 'conflict' });
    });

    it('lets two organizations use the same key', async () => {
      const other = await env.createOrganization();
      await env.call('dataModels.create', { key: 'shared_key', name: 'Mine' }, admin());
      await expect(env.call<ModelOutput>('dataModels.create', { key: 'shared_key', name: 'Theirs' }, env.principal(other))).resolves.toMatchObject({
        name: 'Theirs',
      });
      await expect(env.call<ModelOutput>('dataModels.get', { key: 'shared_key' }, admin())).resolves.toMatchObject({ name: 'Mine' });
    });

    it('needs data-models.manage', async () => {
      const reader = env.principal(org, { permissions: ['data-models.read'] });
      await expect(env.call('dataModels.create', { key: 'nope', name: 'Nope' }, reader)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission data-models.manage',
      });
    });
  });

  describe('dataModels.get / list', () => {
    it('lists live models by key in the list envelope, and needs data-models.read', async () => {
      const fresh = await env.createOrganization();
      const owner = env.principal(fresh);
      await env.call('dataModels.create', { key: 'zebras', name: 'Zebras' }, owner);
      await env.call('dataModels.create', { key: 'apples', name: 'Apples' }, owner);
      await env.call('dataModels.create', { key: 'gone', name: 'Gone' }, owner);
      await env.call('dataModels.archive', { key: 'gone' }, owner);
      const list = await env.call<{ items: ModelOutput[]; nextCursor: null }>('dataModels.list', {}, owner);
      expect(list.items.map((model) => model.key)).toEqual(['apples', 'zebras']);
      expect(list.nextCursor).toBeNull();
      await expect(env.call('dataModels.list', {}, env.principal(fresh, { permissions: [] }))).rejects.toMatchObject({ code: 'forbidden' });
    });

    it("counts each model's live records the caller may see, and gives no count without records.read", async () => {
      const fresh = await env.createOrganization(['finance']);
      const owner = env.principal(fresh, { roles: ['owner', 'finance'] });
      await env.call('dataModels.create', { key: 'deals', name: 'Deals' }, owner);
      await env.call('dataModels.create', { key: 'empty', name: 'Empty' }, owner);
      const created = [];
      for (const title of ['Open', 'Secret', 'Deleted']) created.push(await env.call<{ id: string }>('records.create', { model: 'deals', data: { title } }, owner));
      await env.call('records.setAccess', { id: created[1].id, roleIds: [fresh.roles.finance] }, owner);
      await env.call('records.delete', { id: created[2].id }, owner);
      const counts = async (principal: ReturnType<typeof env.principal>) =>
        (await env.call<{ items: Array<{ key: string; recordCount: number | null }> }>('dataModels.list', { recordCounts: true }, principal)).items.map((model) => [
          model.key,
          model.recordCount,
        ]);
      expect(await counts(owner)).toEqual([['deals', 2], ['empty', 0]]);
      expect(await counts(env.principal(fresh, { roles: ['member'] }))).toEqual([['deals', 1], ['empty', 0]]);
      expect(await counts(env.principal(fresh, { permissions: ['data-models.read'] }))).toEqual([['deals', null], ['empty', null]]);
      const [plain] = (await env.call<{ items: Array<Record<string, unknown>> }>('dataModels.list', {}, owner)).items;
      expect(plain).not.toHaveProperty('recordCount');
    });

    it('counts up to the cap, and says when a model holds more', async () => {
      const fresh = await env.createOrganization([]);
      const owner = env.principal(fresh, { roles: ['owner'] });
      await env.call('dataModels.create', { key: 'big', name: 'Big' }, owner);
      await env.call('records.create', { model: 'big', data: { title: 'seed' } }, owner);
      await env.sql(
        `INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by)
         SELECT gen_random_uuid(), r.organization_id, r.model_id, 'copy ' || n, r.data, r.created_by, r.updated_by
           FROM records r, generate_series(1, 10000) AS n WHERE r.organization_id = ?`,
        [fresh.id],
      );
      const [big] = (await env.call<{ items: Array<{ recordCount: number; recordCountCapped: boolean }> }>('dataModels.list', { recordCounts: true }, owner)).items;
      expect(big).toMatchObject({ recordCount: 10_000, recordCountCapped: true });
    });

    it('answers not_found for unknown and archived models', async () => {
      await expect(env.call('dataModels.get', { key: 'missing' }, admin())).rejects.toMatchObject({ code: 'not_found' });
      await env.call('dataModels.create', { key: 'old', name: 'Old' }, admin());
      await env.call('dataModels.archive', { key: 'old' }, admin());
      await expect(env.call('dataModels.get', { key: 'old' }, admin())).rejects.toMatchObject({ code: 'not_found' });
      await expect(env.call('records.list', { model: 'old' }, admin())).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('dataModels.update / archive', () => {
    it('changes name and description but never the key', async () => {
      await env.call('dataModels.create', { key: 'tasks', name: 'Tasks' }, admin());
      const updated = await env.call<ModelOutput>('dataModels.update', { key: 'tasks', name: 'To-dos', description: 'Things' }, admin());
      expect(updated).toMatchObject({ key: 'tasks', name: 'To-dos', description: 'Things' });
      await expect(env.call<ModelOutput>('dataModels.update', { key: 'tasks', description: null }, admin())).resolves.toMatchObject({
        description: null,
      });
      await expect(env.call('dataModels.update', { key: 'tasks', newKey: 'x' }, admin())).rejects.toMatchObject({ code: 'validation_failed' });
    });

    it('archives a model and reports when', async () => {
      await env.call('dataModels.create', { key: 'to_archive', name: 'Temp' }, admin());
      const archived = await env.call<{ key: string; archivedAt: string }>('dataModels.archive', { key: 'to_archive' }, admin());
      expect(archived.key).toBe('to_archive');
      expect(new Date(archived.archivedAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      await expect(env.call('dataModels.archive', { key: 'to_archive' }, admin())).rejects.toMatchObject({ code: 'not_found' });
    });
  });
});
