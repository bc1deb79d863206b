import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import type { RecordListOutput, RecordOutput } from './schemas';

describe('records.list', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  const titlesById = new Map<string, string>();
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    const owner = env.principal(org);
    await env.call('dataModels.create', { key: 'items', name: 'Items' }, owner);
    const field = (input: Record<string, unknown>) => env.call('dataModels.fields.create', { model: 'items', ...input }, owner);
    await field({ key: 'price', name: 'Price', type: 'NUMBER' });
    await field({ key: 'color', name: 'Color', type: 'SELECT', config: { options: ['red', 'green', 'blue'].map((value) => ({ value, label: value })) } });
    await field({ key: 'tags', name: 'Tags', type: 'MULTI_SELECT', config: { options: ['a', 'b', 'c'].map((value) => ({ value, label: value })) } });
    await field({ key: 'due', name: 'Due', type: 'DATE' });
    await field({ key: 'seen_at', name: 'Seen at', type: 'DATETIME' });
    await field({ key: 'active', name: 'Active', type: 'BOOLEAN' });
    await field({ key: 'note', name: 'Note', type: 'TEXT' });
    const rows: Array<Record<string, unknown>> = [
      { title: 'Apple', price: 3, color: 'red', tags: ['a'], due: '2030-01-05', seen_at: '2030-01-05T10:00:00Z', active: true, note: '100% juice' },
      { title: 'Banana', price: 1, color: 'green', tags: ['a', 'b'], due: '2030-01-01', active: false },
      { title: 'Cherry', price: 3, color: 'red', tags: ['c'], due: '2030-02-01', seen_at: '2030-01-06T10:00:00Z', active: true, note: 'Sour_ish' },
      { title: 'Date', price: 10, color: 'blue', due: '2029-12-31' },
      { title: 'Elderberry', price: 3, tags: ['b', 'c'], note: 'berry' },
      { title: 'Fig' },
    ];
    for (const data of rows) {
      const record = await env.call<RecordOutput>('records.create', { model: 'items', data }, owner);
      titlesById.set(record.id, record.title);
    }
  });
  afterAll(() => env.close());

  const list = (input: Record<string, unknown>) => env.call<RecordListOutput>('records.list', { model: 'items', ...input }, env.principal(org));
  const titles = async (input: Record<string, unknown>) => (await list(input)).items.map((record) => record.title);
  const filtered = async (filter: unknown) => (await titles({ filter, sort: 'title' }));

  describe('filters', () => {
    it.each([
      [{ field: 'price', op: 'eq', value: 3 }, ['Apple', 'Cherry', 'Elderberry']],
      [{ field: 'price', op: 'neq', value: 3 }, ['Banana', 'Date', 'Fig']],
      [{ field: 'price', op: 'gt', value: 3 }, ['Date']],
      [{ field: 'price', op: 'gte', value: 3 }, ['Apple', 'Cherry', 'Date', 'Elderberry']],
      [{ field: 'price', op: 'lt', value: 3 }, ['Banana']],
      [{ field: 'price', op: 'lte', value: 1 }, ['Banana']],
      [{ field: 'price', op: 'in', value: [1, 10] }, ['Banana', 'Date']],
      [{ field: 'price', op: 'notIn', value: [1, 10] }, ['Apple', 'Cherry', 'Elderberry', 'Fig']],
      [{ field: 'price', op: 'isEmpty' }, ['Fig']],
      [{ field: 'color', op: 'eq', value: 'red' }, ['Apple', 'Cherry']],
      [{ field: 'color', op: 'isNotEmpty' }, ['Apple', 'Banana', 'Cherry', 'Date']],
      [{ field: 'tags', op: 'contains', value: 'b' }, ['Banana', 'Elderberry']],
      [{ field: 'tags', op: 'in', value: ['a', 'c'] }, ['Apple', 'Banana', 'Cherry', 'Elderberry']],
      [{ field: 'tags', op: 'isEmpty' }, ['Date', 'Fig']],
      [{ field: 'due', op: 'lt', value: '2030-01-02' }, ['Banana', 'Date']],
      [{ field: 'seen_at', op: 'gte', value: '2030-01-06T11:00:00+01:00' }, ['Cherry']],
      [{ field: 'active', op: 'eq', value: false }, ['Banana']],
      [{ field: 'active', op: 'neq', value: true }, ['Banana', 'Date', 'Elderberry', 'Fig']],
      [{ field: 'note', op: 'contains', value: '%' }, ['Apple']],
      [{ field: 'note', op: 'contains', value: 'BERRY' }, ['Elderberry']],
      [{ field: 'note', op: 'startsWith', value: 'sour_' }, ['Cherry']],
      [{ field: 'title', op: 'startsWith', value: 'b' }, ['Banana']],
      [{ field: 'title', op: 'in', value: ['Fig', 'Date'] }, ['Date', 'Fig']],
      [{ or: [{ field: 'price', op: 'gt', value: 5 }, { field: 'color', op: 'eq', value: 'green' }] }, ['Banana', 'Date']],
      [{ and: [{ field: 'price', op: 'eq', value: 3 }, { not: { field: 'color', op: 'eq', value: 'red' } }] }, ['Elderberry']],
      [{ not: { field: 'price', op: 'gt', value: 2 } }, ['Banana', 'Fig']],
    ])('%j', async (filter, expected) => {
      expect(await filtered(filter)).toEqual(expected);
    });

    it('filters on createdAt, updatedAt and id', async () => {
      const all = await list({ sort: 'createdAt', limit: 100 });
      const third = all.items[2];
      expect(await titles({ filter: { field: 'createdAt', op: 'gt', value: third.createdAt }, sort: 'createdAt' })).toEqual(
        all.items.slice(3).map((record) => record.title),
      );
      expect(await titles({ filter: { field: 'id', op: 'eq', value: third.id } })).toEqual([third.title]);
      expect(await titles({ filter: { field: 'updatedAt', op: 'lte', value: new Date(Date.now() + 60_000).toISOString() } })).toHaveLength(6);
    });

    it('takes the filter as an object, never as JSON text (the REST door parses its query parameter)', async () => {
      const tree = { field: 'color', op: 'eq', value: 'blue' };
      expect(await titles({ filter: tree })).toEqual(['Date']);
      for (const text of [JSON.stringify(tree), '{"field":']) {
        await expect(list({ filter: text })).rejects.toMatchObject({
          code: 'validation_failed',
          details: [{ field: 'filter', code: 'invalid_type', message: 'must be object' }],
        });
      }
    });

    it('binds values as parameters: quotes and SQL in values are just text', async () => {
      expect(await filtered({ field: 'note', op: 'eq', value: "x' OR '1'='1" })).toEqual([]);
      expect(await filtered({ field: 'title', op: 'contains', value: "'); DROP TABLE records; --" })).toEqual([]);
      expect(await env.sql('SELECT count(*)::int AS n FROM records')).toEqual([{ n: 6 }]);
    });

    it('refuses invalid trees with details', async () => {
      await expect(list({ filter: { field: 'nope', op: 'eq', value: 1 } })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ field: 'filter.field', code: 'unknown_field' })],
      });
      await expect(list({ filter: { field: 'price', op: 'contains', value: 1 } })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(list({ filter: { field: 'price', op: 'eq', value: 'three' } })).rejects.toMatchObject({ code: 'validation_failed' });
    });

    it('refuses trees over 100 nodes or deeper than 8 levels', async () => {
      const leaf = { field: 'price', op: 'eq', value: 1 };
      const wide = { or: Array.from({ length: 100 }, () => leaf) };
      await expect(list({ filter: wide })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ code: 'out_of_range' })],
      });
      const justWideEnough = { or: Array.from({ length: 99 }, () => leaf) };
      await expect(list({ filter: justWideEnough })).resolves.toMatchObject({ items: [expect.objectContaining({ title: 'Banana' })] });

      let deep: Record<string, unknown> = leaf;
      for (let level = 1; level < 9; level++) deep = { not: deep };
      await expect(list({ filter: deep })).rejects.toMatchObject({
        code: 'validation_failed',
        details: [expect.objectContaining({ code: 'out_of_range' })],
      });
      let deepEnough: Record<string, unknown> = leaf;
      for (let level = 1; level < 8; level++) deepEnough = { and: [deepEnough] };
      await expect(list({ filter: deepEnough })).resolves.toMatchObject({ items: [expect.objectContaining({ title: 'Banana' })] });
    });
  });

  describe('sort', () => {
    it('defaults to -createdAt with id as tiebreaker', async () => {
      expect(await titles({})).toEqual(['Fig', 'Elderberry', 'Date', 'Cherry', 'Banana', 'Apple']);
    });

    it('sorts by a field ascending and descending, ties broken by id, empty values last ascending', async () => {
      const ascending = await list({ sort: 'price' });
      expect(ascending.items.map((record) => record.title)).toEqual(['Banana', 'Apple', 'Cherry', 'Elderberry', 'Date', 'Fig']);
      const descending = await list({ sort: '-price' });
      expect(descending.items.map((record) => record.title)).toEqual(['Fig', 'Date', 'Elderberry', 'Cherry', 'Apple', 'Banana']);
      expect(await titles({ sort: '-price,title' })).toEqual(['Fig', 'Date', 'Apple', 'Cherry', 'Elderberry', 'Banana']);
      expect(await titles({ sort: 'color,-title' })).toEqual(['Date', 'Banana', 'Cherry', 'Apple', 'Fig', 'Elderberry']);
    });

    it('pages through a sort with ties and empty values without losing or repeating a record', async () => {
      for (const sort of ['price', '-price', 'color,-title', 'due', '-seen_at', 'active,price', '-title', 'updatedAt']) {
        const seen: string[] = [];
        let cursor: string | null | undefined;
        do {
          const page: RecordListOutput = await list({ sort, limit: 2, ...(cursor ? { cursor } : {}) });
          seen.push(...page.items.map((record) => record.title));
          cursor = page.nextCursor;
        } while (cursor);
        expect({ sort, titles: seen }).toEqual({ sort, titles: await titles({ sort, limit: 100 }) });
        expect(new Set(seen).size).toBe(6);
      }
    });

    it('refuses unknown keys, unsortable types, repeats and more than 3 keys', async () => {
      for (const sort of ['nope', 'tags', 'price,price', 'price,title,color,due', '-', 'price,']) {
        await expect(list({ sort })).rejects.toMatchObject({ code: 'bad_request' });
      }
      await expect(list({ sort: '' })).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'sort' })] });
    });
  });

  describe('pages and cursors', () => {
    it('checks limit: default 25, at most 100', async () => {
      await expect(list({ limit: 0 })).rejects.toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'limit' })] });
      await expect(list({ limit: 101 })).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(list({ limit: 2.5 })).rejects.toMatchObject({ code: 'validation_failed' });
      const page = await list({ limit: 5 });
      expect(page.items).toHaveLength(5);
      expect(typeof page.nextCursor).toBe('string');
      await expect(list({})).resolves.toMatchObject({ nextCursor: null });
    });

    it('refuses tampered cursors and cursors of another list', async () => {
      const { nextCursor } = await list({ limit: 2 });
      const cursor = nextCursor as string;
      const [body, mac] = cursor.split('.');
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      payload.i = '01900000-0000-7000-8000-000000000000';
      const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
      const refused = { code: 'validation_failed', details: [expect.objectContaining({ field: 'cursor', code: 'invalid_format' })] };
      for (const bad of [forged, `${cursor}x`, 'garbage', `${body}.`, cursor.replace('.', '')]) {
        await expect(list({ limit: 2, cursor: bad })).rejects.toMatchObject(refused);
      }
      await expect(list({ limit: 2, cursor, sort: 'title' })).rejects.toMatchObject(refused);
      await expect(list({ limit: 2, cursor, filter: { field: 'price', op: 'gt', value: 0 } })).rejects.toMatchObject(refused);
      await env.call('dataModels.create', { key: 'others', name: 'Others' }, env.principal(org));
      await expect(env.call('records.list', { model: 'others', cursor }, env.principal(org))).rejects.toMatchObject(refused);
      await expect(list({ limit: 2, cursor })).resolves.toMatchObject({ items: [expect.anything(), expect.anything()] });
    });
  });
});

describe('records.list pagination under concurrent inserts', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    await env.call('dataModels.create', { key: 'events', name: 'Events' }, env.principal(org));
    await env.call('dataModels.fields.create', { model: 'events', key: 'n', name: 'N', type: 'NUMBER' }, env.principal(org));
    const [model] = await env.sql<{ id: string }>(`SELECT id FROM data_models WHERE organization_id = ? AND key = 'events'`, [org.id]);
    // 1,000 records, ten per timestamp so ties on created_at must be broken by id.
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_at, updated_at, created_by, updated_by)
       SELECT gen_random_uuid(), ?, ?, 'Event ' || g, jsonb_build_object('title', 'Event ' || g, 'n', g % 7), ts, ts, 'seed', 'seed'
       FROM generate_series(1, 1000) g, LATERAL (SELECT now() - interval '1 hour' + (g / 10) * interval '1 second' AS ts) t`,
      [org.id, model.id],
    );
  });
  afterAll(() => env.close());

  it.each(['-createdAt', 'createdAt', 'n,-createdAt', '-n', 'title'])('returns each old record exactly once (sort %s)', async (sort) => {
    const old = new Set((await env.sql<{ id: string }>('SELECT id FROM records WHERE created_by = ?', ['seed'])).map((row) => row.id));
    const seen = new Map<string, number>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: RecordListOutput = await env.call<RecordListOutput>(
        'records.list',
        { model: 'events', sort, limit: 100, ...(cursor ? { cursor } : {}) },
        env.principal(org),
      );
      for (const record of page.items) seen.set(record.id, (seen.get(record.id) ?? 0) + 1);
      cursor = page.nextCursor;
      pages += 1;
      // Writers keep inserting while the reader pages.
      await Promise.all(
        [0, 1, 2].map((index) =>
          env.call('records.create', { model: 'events', data: { title: `New ${pages}.${index}`, n: index } }, env.principal(org)),
        ),
      );
    } while (cursor);
    expect([...old].filter((id) => seen.get(id) !== 1)).toEqual([]);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    expect(pages).toBeGreaterThanOrEqual(10);
  });
});
