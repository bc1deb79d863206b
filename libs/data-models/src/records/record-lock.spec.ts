import { Client } from 'pg';
import { newId } from '@mrp/platform';
import { definedPreparedStatements } from '@mrp/platform/testing';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
// Loading the store defines its statements.
import './record-store';

/**
 * A PATCH or DELETE reads its record with a row lock. The lock must fall only on a row the caller
 * passed the checks for: a lock on another organization's record, a hidden one or a deleted one
 * would make that record's writers wait on a caller who cannot see it, and tell the caller the id
 * exists.
 */
describe('the locked read of a record by id', () => {
  let env: DataModelsTestEnv;
  let owner: TestOrganization;
  let stranger: TestOrganization;
  let recordId: string;
  let hiddenId: string;
  let holder: Client;
  let writer: Client;
  const locked = definedPreparedStatements().find((statement) => statement.plan.purpose === 'record by id, live, locked');

  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    owner = await env.createOrganization();
    stranger = await env.createOrganization();
    const admin = env.principal(owner);
    await env.call('dataModels.create', { key: 'deals', name: 'Deals' }, admin);
    recordId = (await env.call<{ id: string }>('records.create', { model: 'deals', data: { title: 'Visible' } }, admin)).id;
    hiddenId = (await env.call<{ id: string }>('records.create', { model: 'deals', data: { title: 'Hidden' } }, admin)).id;
    await env.call('records.setAccess', { id: hiddenId, roleIds: [owner.roles.admin] }, admin);
    holder = new Client({ connectionString: env.db.database.url });
    writer = new Client({ connectionString: env.db.database.url });
    await Promise.all([holder.connect(), writer.connect()]);
  });
  afterAll(async () => {
    await Promise.all([holder.end(), writer.end()]);
    await env.close();
  });

  /** Runs the locked read in an open transaction, then asks whether another writer can lock the row. */
  async function lockedReadThenTryLock(organizationId: string, id: string, roleIds: string[]): Promise<{ found: number; otherWriterBlocked: boolean }> {
    if (!locked) throw new Error('The locked read statement is not defined');
    await holder.query('BEGIN');
    try {
      const found = await holder.query({ text: locked.text, values: [organizationId, id, `{${roleIds.join(',')}}`] });
      const attempt = await writer.query('SELECT id FROM records WHERE id = $1 FOR UPDATE NOWAIT', [id]).then(
        () => false,
        (error: { code?: string }) => {
          if (error.code === '55P03') return true;
          throw error;
        },
      );
      return { found: found.rowCount ?? 0, otherWriterBlocked: attempt };
    } finally {
      await holder.query('ROLLBACK');
    }
  }

  it('locks the record the caller may write', async () => {
    expect(await lockedReadThenTryLock(owner.id, recordId, [owner.roles.owner])).toEqual({ found: 1, otherWriterBlocked: true });
  });

  it("takes no lock on another organization's record", async () => {
    expect(await lockedReadThenTryLock(stranger.id, recordId, [stranger.roles.owner])).toEqual({ found: 0, otherWriterBlocked: false });
  });

  it('takes no lock on a record hidden from the caller', async () => {
    expect(await lockedReadThenTryLock(owner.id, hiddenId, [owner.roles.member])).toEqual({ found: 0, otherWriterBlocked: false });
  });

  it('takes no lock for an id that names nothing', async () => {
    expect(await lockedReadThenTryLock(owner.id, newId(), [owner.roles.owner])).toEqual({ found: 0, otherWriterBlocked: false });
  });
});
