import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { FieldOutput } from '../models/schemas';
import type { RecordOutput } from '../records/schemas';

describe('Field procedures', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
  });
  afterAll(() => env.close());

  const owner = () => env.principal(org);
  let modelCount = 0;
  /** A fresh model per test keeps the rules independent of each other. */
  const newModel = async () => {
    const key = `model_${++modelCount}`;
    await env.call('dataModels.create', { key, name: key }, owner());
    return key;
  };
  const createField = (model: string, input: Record<string, unknown>) =>
    env.call<FieldOutput>('dataModels.fields.create', { model, name: String(input.key), ...input }, owner());
  const updateField = (model: string, input: Record<string, unknown>) =>
    env.call<FieldOutput>('dataModels.fields.update', { model, ...input }, owner());
  const createRecord = (model: string, data: Record<string, unknown>) => env.call<RecordOutput>('records.create', { model, data }, owner());
  const fieldKeys = async (model: string) =>
    (await env.call<{ items: FieldOutput[] }>('dataModels.fields.list', { model }, owner())).items.map((field) => field.key);

  describe('dataModels.fields.create', () => {
    it('fills config defaults and places new fields after the others', async () => {
      const model = await newModel();
      const field = await createField(model, { key: 'summary', name: 'Summary', type: 'LONG_TEXT' });
      expect(field).toEqual({
        key: 'summary',
        name: 'Summary',
        type: 'LONG_TEXT',
        config: { maxLength: 100000 },
        required: false,
        position: 1,
        indexed: false,
        indexStatus: null,
        indexError: null,
        archivedAt: null,
      });
      await createField(model, { key: 'first', type: 'NUMBER', position: 0 });
      expect(await fieldKeys(model)).toEqual(['first', 'title', 'summary']);
    });

    it('refuses invalid configuration with details under config', async () => {
      const model = await newModel();
      await expect(createField(model, { key: 'size', type: 'NUMBER', config: { min: 5, max: 1 } })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'config.max', code: 'out_of_range' })],
      });
      await expect(createField(model, { key: 'kind', type: 'SELECT', config: { colour: 'red' } })).rejects.toMatchObject({
        details: expect.arrayContaining([expect.objectContaining({ field: 'config.colour', code: 'unknown_field' })]),
      });
      await expect(createField(model, { key: 'x', type: 'SPREADSHEET' })).rejects.toMatchObject({ code: 'validation_failed' });
    });

    it('refuses duplicate keys (title included), keys that are not snake_case, and unknown models', async () => {
      const model = await newModel();
      await createField(model, { key: 'code', type: 'TEXT' });
      await expect(createField(model, { key: 'code', type: 'TEXT' })).rejects.toMatchObject({ code: 'conflict' });
      await expect(createField(model, { key: 'title', type: 'TEXT' })).rejects.toMatchObject({ code: 'conflict' });
      await expect(createField(model, { key: 'Code', type: 'TEXT' })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'key', code: 'invalid_format' })],
      });
      await expect(createField('no_such_model', { key: 'code', type: 'TEXT' })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('needs the RELATION target model to exist in the same organization', async () => {
      const model = await newModel();
      const target = await newModel();
      await expect(createField(model, { key: 'link', type: 'RELATION', config: { targetModel: target } })).resolves.toMatchObject({
        config: { targetModel: target, multiple: false },
      });
      await expect(createField(model, { key: 'bad_link', type: 'RELATION', config: { targetModel: 'missing' } })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'config.targetModel', code: 'not_found' })],
      });
      const other = await env.createOrganization();
      await env.call('dataModels.create', { key: 'elsewhere', name: 'Elsewhere' }, env.principal(other));
      await expect(createField(model, { key: 'cross', type: 'RELATION', config: { targetModel: 'elsewhere' } })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'config.targetModel', code: 'not_found' })],
      });
    });

    it('checks formulas when they are defined: unknown references and cycles are refused', async () => {
      const model = await newModel();
      await createField(model, { key: 'price', type: 'NUMBER' });
      await expect(
        createField(model, { key: 'tax', type: 'FORMULA', config: { expression: '{prize} * 0.2', resultType: 'NUMBER' } }),
      ).rejects.toMatchObject({ details: [expect.objectContaining({ field: 'config.expression', code: 'unknown_field' })] });
      await expect(
        createField(model, { key: 'loop', type: 'FORMULA', config: { expression: '{loop} + 1', resultType: 'NUMBER' } }),
      ).rejects.toMatchObject({ details: [expect.objectContaining({ field: 'config.expression', code: 'invalid_format' })] });
      await expect(
        createField(model, { key: 'label', type: 'FORMULA', config: { expression: '{price} * 2', resultType: 'TEXT' } }),
      ).rejects.toMatchObject({ details: [expect.objectContaining({ code: 'invalid_type' })] });
      await expect(
        createField(model, { key: 'total', type: 'FORMULA', config: { expression: '{price} * 2', resultType: 'NUMBER' }, required: true }),
      ).rejects.toMatchObject({ details: [expect.objectContaining({ field: 'required' })] });
    });

    it('computes a new formula for the records that already exist', async () => {
      const model = await newModel();
      await createField(model, { key: 'price', type: 'NUMBER' });
      const record = await createRecord(model, { title: 'Existing', price: 21 });
      await createField(model, { key: 'double', type: 'FORMULA', config: { expression: '{price} * 2', resultType: 'NUMBER' } });
      await expect(env.call('records.get', { id: record.id }, owner())).resolves.toMatchObject({ data: { price: 21, double: 42 } });
    });

    it('refuses a required field while existing records have no value for it', async () => {
      const model = await newModel();
      await createField(model, { key: 'must', type: 'TEXT', required: true });
      await createRecord(model, { title: 'One', must: 'yes' });
      await expect(createField(model, { key: 'later', type: 'TEXT', required: true })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'later', code: 'required' })],
      });
    });

    it('refuses to index FILE and ATTACHMENTS fields', async () => {
      const model = await newModel();
      await expect(createField(model, { key: 'doc', type: 'FILE', indexed: true })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'indexed', code: 'invalid_option' })],
      });
    });
  });

  describe('dataModels.fields.update', () => {
    it('refuses a type change while stored values do not fit, naming the field', async () => {
      const model = await newModel();
      await createField(model, { key: 'code', type: 'TEXT' });
      await createRecord(model, { title: 'A', code: 'https://example.com/a' });
      await createRecord(model, { title: 'B', code: 'not a url' });
      await expect(updateField(model, { key: 'code', type: 'URL' })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'code', code: 'invalid_format', message: expect.stringMatching(/^Record [0-9a-f-]{36}: /) })],
      });
      await expect(env.call<{ items: FieldOutput[] }>('dataModels.fields.list', { model }, owner())).resolves.toMatchObject({
        items: expect.arrayContaining([expect.objectContaining({ key: 'code', type: 'TEXT' })]),
      });
    });

    it('allows a type change when every stored value fits', async () => {
      const model = await newModel();
      await createField(model, { key: 'status', type: 'TEXT' });
      const record = await createRecord(model, { title: 'A', status: 'open' });
      const deleted = await createRecord(model, { title: 'B', status: 'whatever' });
      await env.call('records.delete', { id: deleted.id }, owner());
      const options = [{ value: 'open', label: 'Open' }, { value: 'closed', label: 'Closed' }];
      await expect(updateField(model, { key: 'status', type: 'SELECT', config: { options } })).resolves.toMatchObject({ type: 'SELECT' });
      await expect(env.call('records.update', { id: record.id, data: { status: 'nope' } }, owner())).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'status', code: 'invalid_option' })],
      });
    });

    it('re-checks stored values when the configuration narrows', async () => {
      const model = await newModel();
      await createField(model, { key: 'qty', type: 'NUMBER' });
      await createRecord(model, { title: 'A', qty: 50 });
      await expect(updateField(model, { key: 'qty', config: { max: 10 } })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'qty', code: 'out_of_range' })],
      });
      await expect(updateField(model, { key: 'qty', config: { max: 100 }, name: 'Quantity' })).resolves.toMatchObject({
        name: 'Quantity',
        config: { max: 100 },
      });
    });

    it('sets, changes and clears DATETIME reminders without re-reading stored values', async () => {
      const model = await newModel();
      await createField(model, { key: 'due_at', type: 'DATETIME', config: { reminders: [60, 0] } });
      const record = await createRecord(model, { title: 'A', due_at: '2030-01-01T09:00:00Z' });
      // A value no write could store: a re-check of stored values would refuse any change below.
      await env.sql(`UPDATE records SET data = jsonb_set(data, '{due_at}', '"soon"') WHERE id = ?`, [record.id]);
      await expect(updateField(model, { key: 'due_at', config: { reminders: [1440, 15] } })).resolves.toMatchObject({ config: { reminders: [15, 1440] } });
      await expect(updateField(model, { key: 'due_at', config: {} })).resolves.toMatchObject({ config: {} });
      await expect(updateField(model, { key: 'due_at', config: { reminders: [5, 5, 40321] } })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'config.reminders[2]', code: 'out_of_range' })],
      });
      await expect(updateField(model, { key: 'due_at', config: { reminders: [1, 2, 3, 4, 5, 6] } })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'config.reminders', code: 'too_long' })],
      });
      await expect(createField(model, { key: 'day', type: 'DATE', config: { reminders: [15] } })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'config.reminders', code: 'unknown_field' })],
      });
    });

    it('keeps title a required TEXT field', async () => {
      const model = await newModel();
      await expect(updateField(model, { key: 'title', type: 'LONG_TEXT' })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'type', code: 'read_only' })],
      });
      await expect(updateField(model, { key: 'title', required: false })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'required', code: 'read_only' })],
      });
      await expect(updateField(model, { key: 'title', name: 'Name' })).resolves.toMatchObject({ key: 'title', name: 'Name', required: true });
    });

    it('makes a field required only when every record has a value', async () => {
      const model = await newModel();
      await createField(model, { key: 'owner', type: 'EMAIL' });
      const record = await createRecord(model, { title: 'A' });
      await expect(updateField(model, { key: 'owner', required: true })).rejects.toMatchObject({
        details: [expect.objectContaining({ field: 'owner', code: 'required' })],
      });
      await env.call('records.update', { id: record.id, data: { owner: 'a@example.com' } }, owner());
      await expect(updateField(model, { key: 'owner', required: true })).resolves.toMatchObject({ required: true });
    });

    it('recomputes formulas of every record when the expression changes', async () => {
      const model = await newModel();
      await createField(model, { key: 'price', type: 'NUMBER' });
      await createField(model, { key: 'gross', type: 'FORMULA', config: { expression: '{price} * 2', resultType: 'NUMBER' } });
      const first = await createRecord(model, { title: 'A', price: 10 });
      const second = await createRecord(model, { title: 'B', price: 5 });
      expect(first.data.gross).toBe(20);
      await updateField(model, { key: 'gross', config: { expression: '{price} + 1', resultType: 'NUMBER' } });
      await expect(env.call('records.get', { id: first.id }, owner())).resolves.toMatchObject({ data: { gross: 11 } });
      await expect(env.call('records.get', { id: second.id }, owner())).resolves.toMatchObject({ data: { gross: 6 } });
    });

    it('announces a rewrite of stored values once, with the count of records it changed, and nothing when none changed', async () => {
      const model = await newModel();
      await createField(model, { key: 'contact', type: 'TEXT' });
      await createField(model, { key: 'price', type: 'NUMBER' });
      await createField(model, { key: 'gross', type: 'FORMULA', config: { expression: '{price} * 2', resultType: 'NUMBER' } });
      // Converted to EMAIL, the first two addresses are stored anew (their domains in lower case); the third is as it was.
      for (const contact of ['A@Example.COM', 'b@EXAMPLE.org', 'c@example.net']) await createRecord(model, { title: contact, contact, price: 1 });
      const rewritten = () => env.dispatcher.ofType('data-models.field-values-rewritten').filter((event) => (event.payload as { modelKey: string }).modelKey === model);

      await updateField(model, { key: 'contact', type: 'EMAIL' });
      expect(rewritten().map((event) => event.payload)).toEqual([{ modelKey: model, fieldKey: 'contact', count: 2 }]);
      expect(rewritten()[0].organizationId).toBe(org.id);

      await updateField(model, { key: 'contact', name: 'Contact, renamed' });
      expect(rewritten()).toHaveLength(1);

      // Recomputed, every record's formula value changes (2 becomes 11).
      await updateField(model, { key: 'gross', config: { expression: '{price} + 10', resultType: 'NUMBER' } });
      expect(rewritten().map((event) => event.payload)).toEqual([
        { modelKey: model, fieldKey: 'contact', count: 2 },
        { modelKey: model, fieldKey: 'gross', count: 3 },
      ]);
    });

    it('answers not_found for unknown and archived fields', async () => {
      const model = await newModel();
      await expect(updateField(model, { key: 'ghost', name: 'Ghost' })).rejects.toMatchObject({ code: 'not_found' });
      await createField(model, { key: 'old', type: 'TEXT' });
      await env.call('dataModels.fields.archive', { model, key: 'old' }, owner());
      await expect(updateField(model, { key: 'old', name: 'Old' })).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('dataModels.fields.archive', () => {
    it('removes the field from lists and keeps its key taken', async () => {
      const model = await newModel();
      await createField(model, { key: 'legacy', type: 'TEXT' });
      const archived = await env.call<FieldOutput>('dataModels.fields.archive', { model, key: 'legacy' }, owner());
      expect(archived.archivedAt).toMatch(/Z$/);
      expect(await fieldKeys(model)).toEqual(['title']);
      await expect(createField(model, { key: 'legacy', type: 'TEXT' })).rejects.toMatchObject({ code: 'conflict' });
    });

    it('refuses to archive title or a field a formula reads', async () => {
      const model = await newModel();
      await expect(env.call('dataModels.fields.archive', { model, key: 'title' }, owner())).rejects.toMatchObject({
        details: [expect.objectContaining({ code: 'read_only' })],
      });
      await createField(model, { key: 'base', type: 'NUMBER' });
      await createField(model, { key: 'twice', type: 'FORMULA', config: { expression: '{base} * 2', resultType: 'NUMBER' } });
      await expect(env.call('dataModels.fields.archive', { model, key: 'base' }, owner())).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'config.expression', code: 'unknown_field' })],
      });
    });

    it('needs data-models.manage; reading fields needs data-models.read', async () => {
      const model = await newModel();
      const reader = env.principal(org, { permissions: ['data-models.read'] });
      await expect(env.call('dataModels.fields.list', { model }, reader)).resolves.toMatchObject({ nextCursor: null });
      await expect(env.call('dataModels.fields.create', { model, key: 'x', name: 'X', type: 'TEXT' }, reader)).rejects.toMatchObject({
        code: 'forbidden',
      });
      await expect(env.call('dataModels.fields.list', { model }, env.principal(org, { permissions: ['records.read'] }))).rejects.toMatchObject({
        code: 'forbidden',
      });
    });
  });
});
