import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { answerVersionOf } from '@mrp/platform';
import type { RecordDeletionOutput, RecordListOutput, RecordOutput } from './schemas';

describe('Record procedures', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    const owner = env.principal(org);
    await env.call('dataModels.create', { key: 'companies', name: 'Companies' }, owner);
    await env.call('dataModels.create', { key: 'deals', name: 'Deals' }, owner);
    const field = (input: Record<string, unknown>) => env.call('dataModels.fields.create', { model: 'deals', ...input }, owner);
    await field({ key: 'amount', name: 'Amount', type: 'NUMBER', config: { min: 0 } });
    await field({ key: 'quantity', name: 'Quantity', type: 'NUMBER' });
    await field({ key: 'stage', name: 'Stage', type: 'SELECT', config: { options: [{ value: 'open', label: 'Open' }, { value: 'won', label: 'Won' }] } });
    await field({ key: 'closes_at', name: 'Closes at', type: 'DATETIME' });
    await field({ key: 'note', name: 'Note', type: 'TEXT' });
    await field({ key: 'company', name: 'Company', type: 'RELATION', config: { targetModel: 'companies' } });
    await field({ key: 'total', name: 'Total', type: 'FORMULA', config: { expression: '{amount} * {quantity}', resultType: 'NUMBER' } });
  });
  afterAll(() => env.close());

  const owner = () => env.principal(org);
  const createDeal = (data: Record<string, unknown>) => env.call<RecordOutput>('records.create', { model: 'deals', data }, owner());

  describe('records.create', () => {
    it('validates, normalises, computes formulas and returns the Record shape', async () => {
      const record = await createDeal({ title: 'Big deal', amount: 100, quantity: 3, stage: 'open', closes_at: '2030-01-01T10:00:00+02:00' });
      expect(record).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/),
        model: 'deals',
        title: 'Big deal',
        data: { title: 'Big deal', amount: 100, quantity: 3, stage: 'open', closes_at: '2030-01-01T08:00:00.000Z', total: 300 },
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedAt: record.createdAt,
        createdBy: 'user-1',
        updatedBy: 'user-1',
      });
      await expect(env.call('records.get', { id: record.id }, owner())).resolves.toEqual(record);
    });

    it('refuses invalid data with every problem listed and writes nothing', async () => {
      const before = await env.sql<{ n: number }>('SELECT count(*)::int AS n FROM records');
      await expect(createDeal({ amount: -1, stage: 'lost', total: 5, bogus: 1 })).rejects.toMatchObject({
        code: 'validation_failed',
        details: expect.arrayContaining([
          expect.objectContaining({ field: 'title', code: 'required' }),
          expect.objectContaining({ field: 'amount', code: 'out_of_range' }),
          expect.objectContaining({ field: 'stage', code: 'invalid_option' }),
          expect.objectContaining({ field: 'total', code: 'read_only' }),
          expect.objectContaining({ field: 'bogus', code: 'unknown_field' }),
        ]),
      });
      expect(await env.sql('SELECT count(*)::int AS n FROM records')).toEqual(before);
    });

    it('answers not_found for an unknown model and forbidden without records.create', async () => {
      await expect(env.call('records.create', { model: 'nothing', data: { title: 'x' } }, owner())).rejects.toMatchObject({ code: 'not_found' });
      const reader = env.principal(org, { permissions: ['records.read'] });
      await expect(env.call('records.create', { model: 'deals', data: { title: 'x' } }, reader)).rejects.toMatchObject({ code: 'forbidden' });
    });

    it('checks RELATION targets: live, in the target model, in the same organization', async () => {
      const acme = await env.call<RecordOutput>('records.create', { model: 'companies', data: { title: 'Acme' } }, owner());
      const linked = await createDeal({ title: 'Linked', company: acme.id });
      expect(linked.data.company).toBe(acme.id);

      const otherDeal = await createDeal({ title: 'Not a company' });
      await expect(createDeal({ title: 'Wrong model', company: otherDeal.id })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'company', code: 'not_found' })],
      });

      const gone = await env.call<RecordOutput>('records.create', { model: 'companies', data: { title: 'Gone Inc' } }, owner());
      await env.call('records.delete', { id: gone.id }, owner());
      await expect(createDeal({ title: 'To deleted', company: gone.id })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'company', code: 'not_found' })],
      });

      const foreignOrg = await env.createOrganization();
      await env.call('dataModels.create', { key: 'companies', name: 'Companies' }, env.principal(foreignOrg));
      const foreign = await env.call<RecordOutput>('records.create', { model: 'companies', data: { title: 'Theirs' } }, env.principal(foreignOrg));
      await expect(createDeal({ title: 'Cross-tenant', company: foreign.id })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'company', code: 'not_found' })],
      });
    });
  });

  describe('records.update', () => {
    it('merges the patch, recomputes formulas and clears keys set to null', async () => {
      const deal = await createDeal({ title: 'Patch me', amount: 10, quantity: 2, note: 'keep?' });
      const updated = await env.call<RecordOutput>('records.update', { id: deal.id, data: { quantity: 5, note: null } }, owner());
      expect(updated.data).toEqual({ title: 'Patch me', amount: 10, quantity: 5, total: 50 });
      expect(updated.createdAt).toBe(deal.createdAt);
      const cleared = await env.call<RecordOutput>('records.update', { id: deal.id, data: { amount: null } }, owner());
      expect(cleared.data).toEqual({ title: 'Patch me', quantity: 5 });
    });

    it('denormalises the title and refuses to clear it', async () => {
      const deal = await createDeal({ title: 'Old title' });
      const renamed = await env.call<RecordOutput>('records.update', { id: deal.id, data: { title: 'New title' } }, owner());
      expect(renamed.title).toBe('New title');
      const [row] = await env.sql<{ title: string }>('SELECT title FROM records WHERE id = ?', [deal.id]);
      expect(row.title).toBe('New title');
      await expect(env.call('records.update', { id: deal.id, data: { title: null } }, owner())).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'title', code: 'required' })],
      });
    });

    it('answers not_found for unknown ids, malformed ids and soft-deleted records', async () => {
      await expect(env.call('records.update', { id: '01900000-0000-7000-8000-000000000000', data: {} }, owner())).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(env.call('records.get', { id: 'not-a-uuid' }, owner())).rejects.toMatchObject({ code: 'not_found' });
      const deal = await createDeal({ title: 'Soon deleted' });
      await env.call('records.delete', { id: deal.id }, owner());
      await expect(env.call('records.update', { id: deal.id, data: { title: 'x' } }, owner())).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('versions', () => {
    const versionOf = async (id: string) => (await env.sql<{ version: number }>('SELECT version FROM records WHERE id = ?', [id]))[0].version;

    it('start at 1, grow with every write (update, soft delete, restore, a formula recomputed) and travel beside the answer', async () => {
      const deal = await createDeal({ title: 'Versioned', amount: 1, quantity: 1 });
      expect(answerVersionOf(deal)).toMatchObject({ version: 1 });
      expect(Object.keys(deal)).not.toContain('version');
      const updated = await env.call<RecordOutput>('records.update', { id: deal.id, data: { amount: 2 } }, owner());
      expect(answerVersionOf(updated)).toMatchObject({ version: 2 });
      expect(answerVersionOf(await env.call('records.get', { id: deal.id }, owner()))).toEqual(answerVersionOf(updated));
      await env.call('records.delete', { id: deal.id }, owner());
      const restored = await env.call<RecordOutput>('records.restore', { id: deal.id }, owner());
      expect(answerVersionOf(restored)).toMatchObject({ version: 4 });
      await env.call('dataModels.fields.update', { model: 'deals', key: 'total', config: { expression: '{amount} + {quantity}', resultType: 'NUMBER' } }, owner());
      expect(await versionOf(deal.id)).toBe(5);
      await env.call('dataModels.fields.update', { model: 'deals', key: 'total', config: { expression: '{amount} * {quantity}', resultType: 'NUMBER' } }, owner());
    });

    it('expectedVersion: another version writes nothing and answers precondition_failed; a missing record stays not_found', async () => {
      const deal = await createDeal({ title: 'Expected', amount: 1 });
      await expect(env.call('records.update', { id: deal.id, data: { amount: 2 }, expectedVersion: 2 }, owner())).rejects.toMatchObject({
        code: 'precondition_failed',
      });
      await expect(env.call('records.delete', { id: deal.id, expectedVersion: 0 }, owner())).rejects.toMatchObject({ code: 'precondition_failed' });
      await expect(env.call('records.delete', { id: deal.id, hard: true, expectedVersion: 3 }, owner())).rejects.toMatchObject({ code: 'precondition_failed' });
      expect(await versionOf(deal.id)).toBe(1);
      await expect(env.call('records.update', { id: deal.id, data: { amount: 2 }, expectedVersion: 1 }, owner())).resolves.toMatchObject({ data: { amount: 2 } });
      await expect(env.call('records.delete', { id: deal.id, expectedVersion: 2 }, owner())).resolves.toEqual({ id: deal.id, deleted: true, hard: false });
      await expect(env.call('records.update', { id: deal.id, data: { amount: 3 }, expectedVersion: 3 }, owner())).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('record events', () => {
    it('emits created, updated (naming changed fields) and deleted events with per-model aliases after commit', async () => {
      env.dispatcher.published = [];
      const deal = await createDeal({ title: 'Evented', amount: 1, quantity: 1 });
      await env.call('records.update', { id: deal.id, data: { amount: 2, note: 'n' } }, owner());
      await env.call('records.delete', { id: deal.id, hard: true }, owner());
      const [created, updated, deleted] = env.dispatcher.published;
      expect(created).toMatchObject({
        type: 'data-models.record-created',
        organizationId: org.id,
        subscriptionAliases: ['data-models.deals.record-created'],
        payload: { modelKey: 'deals', recordId: deal.id, record: deal },
      });
      expect(updated).toMatchObject({
        type: 'data-models.record-updated',
        subscriptionAliases: ['data-models.deals.record-updated'],
        payload: { modelKey: 'deals', recordId: deal.id, changedFields: ['amount', 'note', 'total'] },
      });
      expect(deleted).toMatchObject({
        type: 'data-models.record-deleted',
        subscriptionAliases: ['data-models.deals.record-deleted'],
        payload: { modelKey: 'deals', recordId: deal.id, hard: true },
      });
      expect(env.dispatcher.persisted).toEqual(expect.arrayContaining([created, updated, deleted]));
    });

    it('emits nothing when the write is refused', async () => {
      env.dispatcher.published = [];
      await expect(createDeal({ title: 'Bad', amount: 'many' })).rejects.toMatchObject({ code: 'validation_failed' });
      expect(env.dispatcher.published).toEqual([]);
    });
  });

  describe('records.delete / restore', () => {
    it('soft-deletes by default; the record is then not_found to get, update and a second soft delete', async () => {
      const deal = await createDeal({ title: 'Trash me' });
      await expect(env.call<RecordDeletionOutput>('records.delete', { id: deal.id }, owner())).resolves.toEqual({
        id: deal.id,
        deleted: true,
        hard: false,
      });
      await expect(env.call('records.get', { id: deal.id }, owner())).rejects.toMatchObject({ code: 'not_found' });
      await expect(env.call('records.delete', { id: deal.id }, owner())).rejects.toMatchObject({ code: 'not_found' });
      const [row] = await env.sql<{ deleted: boolean }>('SELECT deleted_at IS NOT NULL AS deleted FROM records WHERE id = ?', [deal.id]);
      expect(row.deleted).toBe(true);
    });

    it('restores a soft-deleted record, and refuses to restore a live one', async () => {
      const deal = await createDeal({ title: 'Comeback', amount: 5 });
      await env.call('records.delete', { id: deal.id }, owner());
      const restored = await env.call<RecordOutput>('records.restore', { id: deal.id }, owner());
      expect(restored).toMatchObject({ id: deal.id, title: 'Comeback', data: deal.data });
      await expect(env.call('records.get', { id: deal.id }, owner())).resolves.toMatchObject({ id: deal.id });
      await expect(env.call('records.restore', { id: deal.id }, owner())).rejects.toMatchObject({ code: 'conflict' });
    });

    it('purges with hard: true, also when already soft-deleted, and needs records.purge for it', async () => {
      const deal = await createDeal({ title: 'Purge me' });
      await env.call('records.delete', { id: deal.id }, owner());
      const member = env.principal(org, { permissions: ['records.read', 'records.delete'] });
      await expect(env.call('records.delete', { id: deal.id, hard: true }, member)).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission records.purge',
      });
      await expect(env.call('records.delete', { id: deal.id, hard: true }, owner())).resolves.toEqual({ id: deal.id, deleted: true, hard: true });
      expect(await env.sql('SELECT 1 FROM records WHERE id = ?', [deal.id])).toEqual([]);
      await expect(env.call('records.restore', { id: deal.id }, owner())).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('tenancy', () => {
    it('keeps two organizations with the same model key apart in every procedure', async () => {
      const first = await env.createOrganization();
      const second = await env.createOrganization();
      for (const organization of [first, second]) {
        await env.call('dataModels.create', { key: 'contacts', name: 'Contacts' }, env.principal(organization));
      }
      const mine = await env.call<RecordOutput>('records.create', { model: 'contacts', data: { title: 'Mine' } }, env.principal(first));
      await env.call('records.create', { model: 'contacts', data: { title: 'Theirs' } }, env.principal(second));

      const firstList = await env.call<RecordListOutput>('records.list', { model: 'contacts' }, env.principal(first));
      expect(firstList.items.map((record) => record.title)).toEqual(['Mine']);
      const intruder = env.principal(second);
      await expect(env.call('records.get', { id: mine.id }, intruder)).rejects.toMatchObject({ code: 'not_found' });
      await expect(env.call('records.update', { id: mine.id, data: { title: 'x' } }, intruder)).rejects.toMatchObject({ code: 'not_found' });
      await expect(env.call('records.delete', { id: mine.id, hard: true }, intruder)).rejects.toMatchObject({ code: 'not_found' });
      await expect(env.call('records.setAccess', { id: mine.id, roleIds: [] }, intruder)).rejects.toMatchObject({ code: 'not_found' });
      await expect(env.call('records.get', { id: mine.id }, env.principal(first))).resolves.toMatchObject({ title: 'Mine' });
    });
  });

  describe('archived fields', () => {
    it('are left out of record output, and writes to them are refused', async () => {
      const deal = await createDeal({ title: 'Has a note', note: 'hidden soon' });
      await env.call('dataModels.fields.create', { model: 'deals', key: 'temp', name: 'Temp', type: 'TEXT' }, owner());
      await env.call('dataModels.fields.archive', { model: 'deals', key: 'temp' }, owner());
      await expect(createDeal({ title: 'x', temp: 'y' })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'temp', code: 'unknown_field' })],
      });
      const got = await env.call<RecordOutput>('records.get', { id: deal.id }, owner());
      expect(got.data).toHaveProperty('note', 'hidden soon');
      expect(got.data).not.toHaveProperty('temp');
    });
  });
});
