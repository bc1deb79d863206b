import { Client } from 'pg';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { definitionMap, loadRecordModel } from '../models/model-store';
import { parseSort } from '../query/sort';
import { textPages } from './export-pages';
import type { RecordListOutput, RecordOutput } from './schemas';

/** Each page's record ids, from lines that are the id alone. */
const idLines = (record: { id: string }) => `${record.id}\n`;
const idsOf = (page: Buffer[]) => Buffer.concat(page).toString().split('\n').filter(Boolean);

describe('textPages', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization(['finance']);
    const admin = env.principal(org, { roles: ['admin'] });
    await env.call('dataModels.create', { key: 'items', name: 'Items' }, admin);
    await env.call('dataModels.fields.create', { model: 'items', key: 'rank', name: 'Rank', type: 'NUMBER' }, admin);
    for (let index = 0; index < 11; index++) {
      const record = await env.call<RecordOutput>('records.create', { model: 'items', data: { title: `Item ${index}`, rank: index % 3 } }, admin);
      if (index === 4) await env.call('records.setAccess', { id: record.id, roleIds: [org.roles.finance] }, admin);
    }
  });
  afterAll(() => env.close());

  it('reads, page by page, exactly what the list shows the caller, in its order', async () => {
    const member = env.principal(org, { roles: ['member'] });
    const list = await env.call<RecordListOutput>('records.list', { model: 'items', sort: 'rank,-title', limit: 100 }, member);
    const em = env.db.orm.em.fork();
    const { model, fields } = await loadRecordModel(em, org.id, 'items');
    const definitions = definitionMap(fields);
    const pages: string[][] = [];
    const spec = { organizationId: org.id, modelId: model.id, roleIds: member.roleIds, fields: definitions, sort: parseSort('rank,-title', definitions) };
    for await (const page of textPages(em, spec, idLines, { firstPageSize: 3, pageSize: 3 })) pages.push(idsOf(page));
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3, 1]);
    expect(pages.flat()).toEqual(list.items.map((item) => item.id));
    expect(list.items).toHaveLength(10);
  });

  it('runs each page with the statement timeout it is given, whatever the connection\'s own', async () => {
    const em = env.db.orm.em.fork();
    const { model, fields } = await loadRecordModel(em, org.id, 'items');
    const definitions = definitionMap(fields);
    const spec = { organizationId: org.id, modelId: model.id, roleIds: [], fields: definitions, sort: parseSort(undefined, definitions) };
    const locker = new Client({ connectionString: env.db.database.url });
    await locker.connect();
    try {
      // The page waits for this lock until its own timeout stops it (the connection has none).
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
      const pages = textPages(em, spec, idLines, { statementTimeoutMs: 200 });
      await expect(pages.next()).rejects.toMatchObject({ message: expect.stringContaining('statement timeout') });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const after = await textPages(em, spec, idLines, { statementTimeoutMs: 200 }).next();
    // The connection is fine afterwards: the same page, whole (ten: one record is restricted to a role).
    expect(idsOf(after.value as Buffer[])).toHaveLength(10);
  });
});
