import { randomBytes } from 'node:crypto';
import { invokeProcedure, newId, ProcedureRegistry, type Principal } from '@mrp/platform';
import { flagsAllOff, silentLogger, sentStatements, statementsOf } from '@mrp/platform/testing';
import { createDataModelsProcedures } from '../procedures';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { RecordOutput } from './schemas';

/**
 * Record procedures keep each model's field definitions per process: records.create re-checks
 * their version in the INSERT, and get/update/restore compare it with the version read beside the
 * record. Two procedure sets over one database stand for two processes: what one changes, the
 * other must honour on its very next call.
 */
describe('record procedures with field definitions cached per process', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let owner: Principal;
  // "Process A" creates records; "process B" (the env's own procedures) changes the model.
  const processA = new ProcedureRegistry(createDataModelsProcedures({ cursorSecret: randomBytes(32).toString('base64url'), notifier: { notify: async () => [] } }));
  const createInA = (model: string, data: Record<string, unknown>) => inA<RecordOutput>('records.create', { model, data });
  const inA = <T>(name: string, input: unknown) =>
    invokeProcedure<T>(processA.require(name), input, { em: env.db.orm.em.fork(), principal: owner, correlationId: `test-${newId()}` }, {
      dispatcher: env.dispatcher,
      logger: silentLogger,
      flags: flagsAllOff,
    });
  const inB = <T>(name: string, input: unknown) => env.call<T>(name, input, owner);
  const version = async (model: string) =>
    (await env.sql<{ v: string }>('SELECT fields_version::text AS v FROM data_models WHERE organization_id = ? AND key = ?', [org.id, model]))[0].v;

  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    owner = env.principal(org);
  });
  afterAll(() => env.close());

  async function newModel(key: string): Promise<void> {
    await inB('dataModels.create', { key, name: key });
    await inB('dataModels.fields.create', { model: key, key: 'note', name: 'Note', type: 'TEXT' });
  }

  it('costs one statement plus COMMIT once the model is known', async () => {
    await newModel('warm');
    await createInA('warm', { title: 'first' });
    const sent = await sentStatements(() => createInA('warm', { title: 'second', note: 'n' }));
    expect(sent).toHaveLength(3);
    expect(sent[0]).toBe('begin');
    expect(sent[1]).toMatch(/^INSERT INTO records AS r/);
    expect(sent[2]).toBe('COMMIT');
    const rows = await env.sql<{ title: string }>(`SELECT r.title FROM records r JOIN data_models m ON m.id = r.model_id WHERE m.key = 'warm' ORDER BY r.title`);
    expect(rows.map((row) => row.title)).toEqual(['first', 'second']);
  });

  it('accepts a value for a field another process just added', async () => {
    await newModel('added');
    await createInA('added', { title: 'before' });
    await inB('dataModels.fields.create', { model: 'added', key: 'priority', name: 'Priority', type: 'NUMBER' });
    const record = await createInA('added', { title: 'after', priority: 3 });
    expect(record.data).toEqual({ title: 'after', priority: 3 });
  });

  it('refuses a value for a field another process just archived, and writes nothing', async () => {
    await newModel('archived');
    await createInA('archived', { title: 'before', note: 'fine' });
    await inB('dataModels.fields.archive', { model: 'archived', key: 'note' });
    await expect(createInA('archived', { title: 'after', note: 'too late' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'note', code: 'unknown_field' })],
    });
    const titles = await env.sql<{ title: string }>(`SELECT r.title FROM records r JOIN data_models m ON m.id = r.model_id WHERE m.key = 'archived'`);
    expect(titles.map((row) => row.title)).toEqual(['before']);
  });

  it('applies a new field configuration from another process to the next write', async () => {
    await newModel('configured');
    await inB('dataModels.fields.create', { model: 'configured', key: 'size', name: 'Size', type: 'NUMBER' });
    await createInA('configured', { title: 'small', size: 50 });
    // The stored 50 does not fit max 10, so B's change is refused and 50 stays valid...
    await expect(inB('dataModels.fields.update', { model: 'configured', key: 'size', config: { max: 10 } })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(createInA('configured', { title: 'again', size: 50 })).resolves.toMatchObject({ data: { size: 50 } });
    await inB('dataModels.fields.update', { model: 'configured', key: 'size', config: { max: 100 } });
    // ...while an accepted change binds A at once.
    await expect(createInA('configured', { title: 'too big', size: 150 })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'size', code: 'out_of_range' })],
    });
  });

  it('answers not_found once another process archived the model', async () => {
    await newModel('gone');
    await createInA('gone', { title: 'before' });
    await inB('dataModels.archive', { key: 'gone' });
    await expect(createInA('gone', { title: 'after' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reloads and retries when the version moved after the definitions were read', async () => {
    await newModel('moved');
    await createInA('moved', { title: 'first' });
    // Any field change moves the version; here it moves with nothing else changing.
    await env.sql(`UPDATE data_fields SET name = 'Renamed' WHERE key = 'note' AND model_id = (SELECT id FROM data_models WHERE key = 'moved')`);
    const sent = await sentStatements(() => createInA('moved', { title: 'second' }));
    expect(sent.map((statement) => statement.trim().split(/\s+/, 1)[0])).toEqual(['begin', 'INSERT', 'SELECT', 'INSERT', 'COMMIT']);
    const titles = await env.sql<{ title: string }>(`SELECT r.title FROM records r JOIN data_models m ON m.id = r.model_id WHERE m.key = 'moved' ORDER BY r.title`);
    expect(titles.map((row) => row.title)).toEqual(['first', 'second']);
  });

  it('moves the version on every field insert, update and delete, never back to an earlier value', async () => {
    await inB('dataModels.create', { key: 'versioned', name: 'Versioned' });
    const seen = [await version('versioned')];
    await inB('dataModels.fields.create', { model: 'versioned', key: 'a', name: 'A', type: 'TEXT' });
    seen.push(await version('versioned'));
    await inB('dataModels.fields.update', { model: 'versioned', key: 'a', name: 'A2' });
    seen.push(await version('versioned'));
    await env.sql(`DELETE FROM data_fields WHERE key = 'a' AND model_id = (SELECT id FROM data_models WHERE key = 'versioned')`);
    seen.push(await version('versioned'));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.map(BigInt)).toEqual([...seen.map(BigInt)].sort((x, y) => (x < y ? -1 : 1)));
  });

  it('lets a model and its fields be deleted (the version trigger follows the cascade)', async () => {
    await newModel('deleted');
    await createInA('deleted', { title: 'doomed' });
    await env.sql(`DELETE FROM data_models WHERE organization_id = ? AND key = 'deleted'`, [org.id]);
    expect(await env.sql(`SELECT 1 FROM data_fields f WHERE NOT EXISTS (SELECT 1 FROM data_models m WHERE m.id = f.model_id)`)).toEqual([]);
    await expect(createInA('deleted', { title: 'after' })).rejects.toMatchObject({ code: 'not_found' });
  });

  describe('reads and updates', () => {
    it('get costs one statement once the model is known', async () => {
      await newModel('read');
      const record = await createInA('read', { title: 'cached', note: 'n' });
      const sent = await statementsOf(() => expect(inA('records.get', { id: record.id })).resolves.toEqual(record));
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/FROM \(SELECT \* FROM records WHERE id = \$2::uuid OFFSET 0 *\) r\s+JOIN data_models m/);
    });

    it("shows a field another process just added, and hides one it just archived, on the next get", async () => {
      await newModel('reshaped');
      const record = await createInA('reshaped', { title: 'one', note: 'kept' });
      await expect(inA('records.get', { id: record.id })).resolves.toMatchObject({ data: { title: 'one', note: 'kept' } });
      await inB('dataModels.fields.create', { model: 'reshaped', key: 'extra', name: 'Extra', type: 'TEXT' });
      await inB('records.update', { id: record.id, data: { extra: 'new' } });
      await expect(inA('records.get', { id: record.id })).resolves.toMatchObject({ data: { title: 'one', note: 'kept', extra: 'new' } });
      await inB('dataModels.fields.archive', { model: 'reshaped', key: 'note' });
      const after = await inA<RecordOutput>('records.get', { id: record.id });
      expect(after.data).toEqual({ title: 'one', extra: 'new' });
    });

    it('validates an update against a field configuration another process just changed', async () => {
      await newModel('tightened');
      await inB('dataModels.fields.create', { model: 'tightened', key: 'size', name: 'Size', type: 'NUMBER' });
      const record = await createInA('tightened', { title: 'r', size: 5 });
      await expect(inA('records.update', { id: record.id, data: { size: 50 } })).resolves.toMatchObject({ data: { size: 50 } });
      await inB('dataModels.fields.update', { model: 'tightened', key: 'size', config: { max: 60 } });
      await expect(inA('records.update', { id: record.id, data: { size: 70 } })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'size', code: 'out_of_range' })],
      });
      await expect(inA('records.get', { id: record.id })).resolves.toMatchObject({ data: { size: 50 } });
    });
  });
});
