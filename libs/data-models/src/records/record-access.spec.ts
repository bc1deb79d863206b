import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { RecordAccessOutput, RecordListOutput, RecordOutput } from './schemas';

describe('Row-level access', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let secret: RecordOutput;
  let open: RecordOutput;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization(['finance']);
    const admin = env.principal(org, { roles: ['admin'] });
    await env.call('dataModels.create', { key: 'invoices', name: 'Invoices' }, admin);
    await env.call('dataModels.create', { key: 'payments', name: 'Payments' }, admin);
    await env.call(
      'dataModels.fields.create',
      { model: 'payments', key: 'invoice', name: 'Invoice', type: 'RELATION', config: { targetModel: 'invoices' } },
      admin,
    );
    secret = await env.call<RecordOutput>('records.create', { model: 'invoices', data: { title: 'Secret' } }, admin);
    open = await env.call<RecordOutput>('records.create', { model: 'invoices', data: { title: 'Open' } }, admin);
    await expect(env.call<RecordAccessOutput>('records.setAccess', { id: secret.id, roleIds: [org.roles.finance] }, admin)).resolves.toEqual({
      id: secret.id,
      roleIds: [org.roles.finance],
    });
  });
  afterAll(() => env.close());

  const financeMember = () => env.principal(org, { roles: ['member', 'finance'] });
  const outsider = () => env.principal(org, { roles: ['member'] });

  it('shows a restricted record to holders of a listed role', async () => {
    await expect(env.call('records.get', { id: secret.id }, financeMember())).resolves.toMatchObject({ title: 'Secret' });
    const list = await env.call<RecordListOutput>('records.list', { model: 'invoices' }, financeMember());
    expect(list.items.map((record) => record.title).sort()).toEqual(['Open', 'Secret']);
  });

  it('hides it from everyone else as not_found, never forbidden, in every procedure', async () => {
    const who = outsider();
    const list = await env.call<RecordListOutput>('records.list', { model: 'invoices' }, who);
    expect(list.items.map((record) => record.title)).toEqual(['Open']);
    for (const [name, input] of [
      ['records.get', { id: secret.id }],
      ['records.update', { id: secret.id, data: { title: 'Hacked' } }],
      ['records.delete', { id: secret.id }],
      ['records.delete', { id: secret.id, hard: true }],
      ['records.restore', { id: secret.id }],
      ['records.setAccess', { id: secret.id, roleIds: [] }],
    ] as const) {
      await expect(env.call(name, input, who)).rejects.toMatchObject({ code: 'not_found', message: 'Record not found' });
    }
    // The owner role is not listed either: permissions do not bypass row-level access.
    await expect(env.call('records.get', { id: secret.id }, env.principal(org, { roles: ['owner'] }))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('treats a hidden record as missing in RELATION checks', async () => {
    await expect(
      env.call('records.create', { model: 'payments', data: { title: 'Pay secret', invoice: secret.id } }, outsider()),
    ).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'invoice', code: 'not_found' })] });
    await expect(
      env.call<RecordOutput>('records.create', { model: 'payments', data: { title: 'Pay secret', invoice: secret.id } }, financeMember()),
    ).resolves.toMatchObject({ data: { invoice: secret.id } });
    await expect(
      env.call<RecordOutput>('records.create', { model: 'payments', data: { title: 'Pay open', invoice: open.id } }, outsider()),
    ).resolves.toMatchObject({ data: { invoice: open.id } });
  });

  it('hides a soft-deleted restricted record from restore by outsiders too', async () => {
    const hidden = await env.call<RecordOutput>('records.create', { model: 'invoices', data: { title: 'Hidden trash' } }, financeMember());
    await env.call('records.setAccess', { id: hidden.id, roleIds: [org.roles.finance] }, env.principal(org, { roles: ['finance'] }));
    await env.call('records.delete', { id: hidden.id }, financeMember());
    await expect(env.call('records.restore', { id: hidden.id }, outsider())).rejects.toMatchObject({ code: 'not_found' });
    await expect(env.call('records.restore', { id: hidden.id }, financeMember())).resolves.toMatchObject({ id: hidden.id });
  });

  it('makes a record public again with []', async () => {
    const record = await env.call<RecordOutput>('records.create', { model: 'invoices', data: { title: 'Toggle' } }, financeMember());
    await env.call('records.setAccess', { id: record.id, roleIds: [org.roles.finance] }, financeMember());
    await expect(env.call('records.get', { id: record.id }, outsider())).rejects.toMatchObject({ code: 'not_found' });
    await expect(env.call('records.setAccess', { id: record.id, roleIds: [] }, financeMember())).resolves.toEqual({ id: record.id, roleIds: [] });
    await expect(env.call('records.get', { id: record.id }, outsider())).resolves.toMatchObject({ title: 'Toggle' });
    expect(await env.sql('SELECT * FROM record_access WHERE record_id = ?', [record.id])).toEqual([]);
  });

  it('only accepts roles of the same organization and needs records.manage-access', async () => {
    const other = await env.createOrganization();
    await expect(
      env.call('records.setAccess', { id: open.id, roleIds: [org.roles.member, other.roles.owner] }, financeMember()),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'roleIds[1]', code: 'not_found', message: 'No such role in this organization' }],
    });
    await expect(
      env.call('records.setAccess', { id: open.id, roleIds: [] }, env.principal(org, { permissions: ['records.read'] })),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(env.call('records.get', { id: open.id }, outsider())).resolves.toMatchObject({ title: 'Open' });
  });

  it('drops access rows when a role is deleted or the record is purged', async () => {
    const temporary = await env.createOrganization(['auditors']);
    const auditor = env.principal(temporary, { roles: ['auditors'] });
    await env.call('dataModels.create', { key: 'audits', name: 'Audits' }, auditor);
    const record = await env.call<RecordOutput>('records.create', { model: 'audits', data: { title: 'Cascade' } }, auditor);
    await env.call('records.setAccess', { id: record.id, roleIds: [temporary.roles.auditors, temporary.roles.admin] }, auditor);
    await env.sql('DELETE FROM roles WHERE id = ?', [temporary.roles.auditors]);
    expect(await env.sql('SELECT role_id FROM record_access WHERE record_id = ?', [record.id])).toEqual([{ role_id: temporary.roles.admin }]);
    await env.call('records.delete', { id: record.id, hard: true }, env.principal(temporary, { roles: ['admin'] }));
    expect(await env.sql('SELECT * FROM record_access WHERE record_id = ?', [record.id])).toEqual([]);
  });
});
