import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { DeletedRecordOutput, RecordListOutput, RecordOutput } from './schemas';

describe('records.list: search (q) and the trash (deleted=only)', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  const admin = () => env.principal(org, { roles: ['admin'], userId: 'admin-user' });
  const list = (input: Record<string, unknown>, who = admin()) => env.call<RecordListOutput>('records.list', { model: 'contacts', ...input }, who);
  const titles = (page: RecordListOutput) => page.items.map((item) => item.title);
  const create = (data: Record<string, unknown>) => env.call<RecordOutput>('records.create', { model: 'contacts', data }, admin());

  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization(['finance']);
    await env.call('dataModels.create', { key: 'contacts', name: 'Contacts' }, admin());
    for (const [key, type] of [
      ['email', 'EMAIL'],
      ['site', 'URL'],
      ['nickname', 'TEXT'],
      ['notes', 'LONG_TEXT'],
      ['old', 'TEXT'],
    ] as const) {
      await env.call('dataModels.fields.create', { model: 'contacts', key, name: key, type }, admin());
    }
    await create({ title: 'Ada Lovelace', email: 'ada@example.com', old: 'needle' });
    await create({ title: 'Grace Hopper', site: 'https://NAVY.example.org', notes: 'needle' });
    await create({ title: '100% sure_thing', nickname: 'back\\slash' });
    await create({ title: '100 percent', nickname: 'sure thing' });
    await env.call('dataModels.fields.archive', { model: 'contacts', key: 'old' }, admin());
  });
  afterAll(() => env.close());

  it('matches the title and TEXT, EMAIL and URL fields, in any case; not other types, not archived fields', async () => {
    expect(titles(await list({ q: 'LOVE' }))).toEqual(['Ada Lovelace']);
    expect(titles(await list({ q: 'Example.COM' }))).toEqual(['Ada Lovelace']);
    expect(titles(await list({ q: 'navy' }))).toEqual(['Grace Hopper']);
    expect(titles(await list({ q: 'needle' }))).toEqual([]);
  });

  it('takes %, _ and \\ literally', async () => {
    expect(titles(await list({ q: '100%' }))).toEqual(['100% sure_thing']);
    expect(titles(await list({ q: 'sure_' }))).toEqual(['100% sure_thing']);
    expect(titles(await list({ q: 'k\\s' }))).toEqual(['100% sure_thing']);
    expect(titles(await list({ q: '%' }))).toEqual(['100% sure_thing']);
  });

  it('combines with a filter, a sort and cursors, and binds cursors to the search', async () => {
    const first = await list({ q: '100', sort: 'title', limit: 1 });
    expect(titles(first)).toEqual(['100 percent']);
    const second = await list({ q: '100', sort: 'title', limit: 1, cursor: first.nextCursor });
    expect(titles(second)).toEqual(['100% sure_thing']);
    expect(second.nextCursor).toBeNull();
    await expect(list({ q: '10', sort: 'title', limit: 1, cursor: first.nextCursor })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(list({ sort: 'title', limit: 1, cursor: first.nextCursor })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(titles(await list({ q: '100', filter: { field: 'nickname', op: 'eq', value: 'sure thing' } }))).toEqual(['100 percent']);
  });

  it('refuses an empty or over-long search text', async () => {
    await expect(list({ q: '' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(list({ q: 'x'.repeat(201) })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(list({ q: 'x'.repeat(200) })).resolves.toEqual({ items: [], nextCursor: null });
  });

  it('lists the trash, newest deletion first, with who deleted each record, to holders of records.delete', async () => {
    const first = await env.call<RecordOutput>('records.create', { model: 'contacts', data: { title: 'Trash one' } }, admin());
    const second = await env.call<RecordOutput>('records.create', { model: 'contacts', data: { title: 'Trash two' } }, admin());
    await env.call('records.delete', { id: second.id }, admin());
    await env.call('records.delete', { id: first.id }, env.principal(org, { roles: ['admin'], userId: 'other-user' }));
    // A record deleted before deleted_by was kept.
    const legacy = await env.call<RecordOutput>('records.create', { model: 'contacts', data: { title: 'Trash legacy' } }, admin());
    await env.sql(`UPDATE records SET deleted_at = now() - interval '1 day' WHERE id = ?`, [legacy.id]);

    const trash = await list({ deleted: 'only' });
    expect(trash.items.map((item) => [item.title, (item as DeletedRecordOutput).deletedBy])).toEqual([
      ['Trash one', 'other-user'],
      ['Trash two', 'admin-user'],
      ['Trash legacy', null],
    ]);
    expect((trash.items[0] as DeletedRecordOutput).deletedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(titles(await list({}))).not.toContain('Trash one');

    const page = await list({ deleted: 'only', limit: 2 });
    const rest = await list({ deleted: 'only', limit: 2, cursor: page.nextCursor });
    expect([...titles(page), ...titles(rest)]).toEqual(['Trash one', 'Trash two', 'Trash legacy']);
    await expect(list({ limit: 2, cursor: page.nextCursor })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(titles(await list({ deleted: 'only', q: 'TWO' }))).toEqual(['Trash two']);
    expect(titles(await list({ deleted: 'only', sort: 'title' }))).toEqual(['Trash legacy', 'Trash one', 'Trash two']);
    await expect(list({ sort: 'deletedAt' })).rejects.toMatchObject({ code: 'bad_request' });

    const reader = env.principal(org, { permissions: ['records.read'] });
    await expect(list({ deleted: 'only' }, reader)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(list({}, reader)).resolves.toBeDefined();
  });

  it('forgets who deleted a record once it is restored', async () => {
    const record = await create({ title: 'Comes back' });
    await env.call('records.delete', { id: record.id }, admin());
    await env.call('records.restore', { id: record.id }, admin());
    const [row] = await env.sql<{ deleted_by: string | null }>('SELECT deleted_by FROM records WHERE id = ?', [record.id]);
    expect(row.deleted_by).toBeNull();
  });
});
