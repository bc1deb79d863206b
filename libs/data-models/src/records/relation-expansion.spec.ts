import { statementsOf } from '@mrp/platform/testing';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { RecordListOutput, RecordOutput } from './schemas';

/** `expand` on records.get and records.list: related titles for what the caller may read, ids alone otherwise. */
describe('expand', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let open: RecordOutput;
  let secret: RecordOutput;
  let gone: RecordOutput;
  let purged: RecordOutput;
  let payment: RecordOutput;
  const admin = () => env.principal(org, { roles: ['admin'] });
  const outsider = () => env.principal(org, { roles: ['member'] });
  const financeMember = () => env.principal(org, { roles: ['member', 'finance'] });

  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization(['finance']);
    await env.call('dataModels.create', { key: 'invoices', name: 'Invoices' }, admin());
    await env.call('dataModels.create', { key: 'payments', name: 'Payments' }, admin());
    const field = (input: Record<string, unknown>) => env.call('dataModels.fields.create', { model: 'payments', ...input }, admin());
    await field({ key: 'invoice', name: 'Invoice', type: 'RELATION', config: { targetModel: 'invoices' } });
    await field({ key: 'covers', name: 'Covers', type: 'RELATION', config: { targetModel: 'invoices', multiple: true } });
    await field({ key: 'amount', name: 'Amount', type: 'NUMBER' });
    const invoice = (title: string) => env.call<RecordOutput>('records.create', { model: 'invoices', data: { title } }, admin());
    [open, secret, gone, purged] = [await invoice('Open'), await invoice('Secret'), await invoice('Gone'), await invoice('Purged')];
    payment = await env.call<RecordOutput>(
      'records.create',
      { model: 'payments', data: { title: 'First', invoice: secret.id, covers: [open.id, secret.id, gone.id, purged.id], amount: 5 } },
      admin(),
    );
    for (let index = 0; index < 29; index++) {
      await env.call('records.create', { model: 'payments', data: { title: `More ${index}`, invoice: open.id, covers: [open.id, gone.id] } }, admin());
    }
    await env.call('records.setAccess', { id: secret.id, roleIds: [org.roles.finance] }, admin());
    await env.call('records.delete', { id: gone.id }, admin());
    await env.call('records.delete', { id: purged.id, hard: true }, admin());
  });
  afterAll(() => env.close());

  it('gives titles of readable records, and the id alone for a hidden, deleted or missing one (no oracle)', async () => {
    const seen = await env.call<RecordOutput>('records.get', { id: payment.id, expand: 'invoice,covers' }, outsider());
    expect(seen.data).toEqual({
      title: 'First',
      invoice: { id: secret.id },
      covers: [{ id: open.id, title: 'Open' }, { id: secret.id }, { id: gone.id }, { id: purged.id }],
      amount: 5,
    });
    const entitled = await env.call<RecordOutput>('records.get', { id: payment.id, expand: 'covers' }, financeMember());
    expect(entitled.data).toMatchObject({ invoice: secret.id, covers: [{ id: open.id, title: 'Open' }, { id: secret.id, title: 'Secret' }, { id: gone.id }, { id: purged.id }] });
  });

  it('leaves the ids as they are without expand, and expands only the fields selected', async () => {
    await expect(env.call<RecordOutput>('records.get', { id: payment.id }, outsider())).resolves.toMatchObject({
      data: { invoice: secret.id, covers: [open.id, secret.id, gone.id, purged.id] },
    });
    const selected = await env.call<RecordOutput>('records.get', { id: payment.id, fields: 'title', expand: 'invoice' }, outsider());
    expect(selected.data).toEqual({ title: 'First' });
  });

  it('expands a whole page with one statement more, whatever the sort and however many relation fields', async () => {
    const list = (input: Record<string, unknown>) => env.call<RecordListOutput>('records.list', { model: 'payments', limit: 30, ...input }, outsider());
    await list({});
    const plain = await statementsOf(() => list({}));
    let page: RecordListOutput | undefined;
    const expanded = await statementsOf(async () => {
      page = await list({ expand: 'invoice,covers' });
    });
    // The titles of every expanded field of the page, read by one prepared statement after the page.
    expect(expanded.length).toBe(plain.length + 1);
    expect(page?.items).toHaveLength(30);
    for (const item of page?.items ?? []) {
      if (item.title === 'First') continue;
      expect(item.data).toMatchObject({ invoice: { id: open.id, title: 'Open' }, covers: [{ id: open.id, title: 'Open' }, { id: gone.id }] });
    }
    const byTitle = await list({ expand: 'covers', sort: 'title', limit: 2 });
    expect(byTitle.items.map((item) => item.data['covers'])).toEqual([
      [{ id: open.id, title: 'Open' }, { id: secret.id }, { id: gone.id }, { id: purged.id }],
      [{ id: open.id, title: 'Open' }, { id: gone.id }],
    ]);
  });

  it('hides a related title from a reader who may not read it, in a list, from the moment its model has a restricted record', async () => {
    await env.call('dataModels.create', { key: 'vendors', name: 'Vendors' }, admin());
    await env.call('dataModels.create', { key: 'bills', name: 'Bills' }, admin());
    await env.call('dataModels.fields.create', { model: 'bills', key: 'vendor', name: 'Vendor', type: 'RELATION', config: { targetModel: 'vendors' } }, admin());
    await env.call('dataModels.fields.create', { model: 'bills', key: 'vendors', name: 'Vendors', type: 'RELATION', config: { targetModel: 'vendors', multiple: true } }, admin());
    const [acme, hidden] = [
      await env.call<RecordOutput>('records.create', { model: 'vendors', data: { title: 'Acme' } }, admin()),
      await env.call<RecordOutput>('records.create', { model: 'vendors', data: { title: 'Hidden' } }, admin()),
    ];
    await env.call('records.create', { model: 'bills', data: { title: 'Bill', vendor: hidden.id, vendors: [acme.id, hidden.id] } }, admin());
    const restrictedMark = async () =>
      (await env.sql<{ has_restricted_records: boolean }>(`SELECT has_restricted_records FROM data_models WHERE organization_id = ? AND key = 'vendors'`, [org.id]))[0]
        .has_restricted_records;
    const page = async (as: ReturnType<typeof admin>) =>
      (await env.call<RecordListOutput>('records.list', { model: 'bills', expand: 'vendor,vendors' }, as)).items[0].data;

    // No record of the model is restricted: every reader of the bill sees every title.
    expect(await restrictedMark()).toBe(false);
    expect(await page(outsider())).toMatchObject({ vendor: { id: hidden.id, title: 'Hidden' }, vendors: [{ id: acme.id, title: 'Acme' }, { id: hidden.id, title: 'Hidden' }] });

    await env.call('records.setAccess', { id: hidden.id, roleIds: [org.roles.finance] }, admin());
    expect(await restrictedMark()).toBe(true);
    expect(await page(outsider())).toEqual({
      title: 'Bill',
      vendor: { id: hidden.id },
      vendors: [{ id: acme.id, title: 'Acme' }, { id: hidden.id }],
    });
    expect(await page(financeMember())).toMatchObject({ vendor: { id: hidden.id, title: 'Hidden' }, vendors: [{ id: acme.id, title: 'Acme' }, { id: hidden.id, title: 'Hidden' }] });

    // Lifting the restriction shows the title again; the mark stays (the check then finds no access rows).
    await env.call('records.setAccess', { id: hidden.id, roleIds: [] }, env.principal(org, { roles: ['admin', 'finance'] }));
    expect(await restrictedMark()).toBe(true);
    expect(await page(outsider())).toMatchObject({ vendor: { id: hidden.id, title: 'Hidden' } });
  });

  it.each([
    ['nope', 'Unknown field "nope"'],
    ['amount', 'Field "amount" is not a RELATION field'],
    ['title', 'Field "title" is not a RELATION field'],
    ['invoice,', 'An empty key: list relation field keys separated by commas'],
  ])('refuses expand=%s, naming the key', async (expand, message) => {
    for (const [name, input] of [
      ['records.get', { id: payment.id, expand }],
      ['records.list', { model: 'payments', expand }],
    ] as const) {
      await expect(env.call(name, input, outsider())).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'expand', message })],
      });
    }
  });
});
