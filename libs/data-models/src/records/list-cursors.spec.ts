import type { EntityManager } from '@mikro-orm/postgresql';
import { createDataModelsTestEnv, type DataModelsTestEnv, type TestOrganization } from '@mrp/data-models/testing';
import { definitionMap, loadLiveModel } from '../models/model-store';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH, type CursorScope } from '../query/cursor';
import { parseSort } from '../query/sort';
import { buildListQuery } from './list-query';
import type { RecordListOutput, RecordOutput } from './schemas';

/** The payload of a cursor, to see whether it carries its values or refers to its row. */
function payloadOf(cursor: string): { v: unknown[]; i: string } {
  return JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
}
const isReference = (value: unknown) => typeof value === 'object' && value !== null;

/** The one answer to a cursor the list cannot continue from, whatever the reason. */
const refused = {
  code: 'validation_failed',
  message: expect.stringMatching(/first page/),
  details: [{ field: 'cursor', code: 'invalid_format', message: expect.stringMatching(/first page/) }],
};

/** What a call answered: the error's code, message and details, or 'ok'. */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    const { code, message, details } = error as { code: string; message: string; details?: unknown };
    return { code, message, details };
  }
}

describe('records.list cursors over long sort values', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  const count = 30;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    const owner = env.principal(org);
    await env.call('dataModels.create', { key: 'docs', name: 'Docs' }, owner);
    const field = (input: Record<string, unknown>) => env.call('dataModels.fields.create', { model: 'docs', ...input }, owner);
    await field({ key: 'body', name: 'Body', type: 'LONG_TEXT' });
    await field({ key: 'first', name: 'First', type: 'TEXT', config: { maxLength: 1000 } });
    await field({ key: 'second', name: 'Second', type: 'TEXT', config: { maxLength: 1000 } });
    await field({ key: 'rank', name: 'Rank', type: 'NUMBER' });
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(900).slice(0, 49_990);
    const titleFiller = 'Ωμέγα ключ 中文 ü '.repeat(60).slice(0, 880);
    for (let i = 0; i < count; i++) {
      // Values differ only far past the 200-character index prefix, some are equal (ties broken by
      // id) and some are missing (sorted last ascending, first descending).
      const data: Record<string, unknown> = {
        title: `${titleFiller} ${i % 10}`,
        first: `${'Ä'.repeat(980)}${i % 3}`,
        rank: i % 4,
      };
      if (i % 7 !== 3) data['body'] = `${i % 4 === 0 ? 'B' : 'A'}${filler}${'abcdefgh'[i % 8]}${'z'.repeat(i % 3)}`;
      if (i % 6 !== 5) data['second'] = `${'ß'.repeat(985)}${i % 5}`;
      await env.call<RecordOutput>('records.create', { model: 'docs', data }, owner);
    }
  });
  afterAll(() => env.close());

  const list = (input: Record<string, unknown>) => env.call<RecordListOutput>('records.list', { model: 'docs', ...input }, env.principal(org));
  const liveIds = async () => (await env.sql<{ id: string }>('SELECT id FROM records WHERE organization_id = ? AND deleted_at IS NULL', [org.id])).map((row) => row.id);

  /** Walks every page; returns the ids in the order seen and every cursor handed out. */
  async function walk(input: Record<string, unknown>, limit: number, afterPage?: (page: number) => Promise<void>) {
    const ids: string[] = [];
    const cursors: string[] = [];
    let cursor: string | null = null;
    do {
      const page: RecordListOutput = await list({ ...input, limit, ...(cursor ? { cursor } : {}) });
      ids.push(...page.items.map((record) => record.id));
      cursor = page.nextCursor;
      if (cursor) cursors.push(cursor);
      await afterPage?.(cursors.length);
    } while (cursor);
    return { ids, cursors };
  }

  it.each([
    ['body', 1],
    ['-body', 1],
    ['first,second', 2],
    ['-first,second', 2],
    ['first,-second,body', 3],
    ['title', 1],
    ['-title', 1],
    ['rank,body', 1],
    ['title,-createdAt', 1],
  ])('pages by %s exactly, every cursor within the bound', async (sort, referenced) => {
    const expected = (await list({ sort, limit: 100 })).items.map((record) => record.id);
    expect(expected).toHaveLength(count);
    const { ids, cursors } = await walk({ sort }, 4);
    expect(ids).toEqual(expected);
    expect(cursors.length).toBeGreaterThanOrEqual(7);
    for (const cursor of cursors) {
      expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    }
    // The long values went by reference (the rows of these pages all have them), the short ones inline.
    expect(cursors.some((cursor) => payloadOf(cursor).v.filter(isReference).length === referenced)).toBe(true);
    expect(cursors.every((cursor) => payloadOf(cursor).v.filter(isReference).length <= referenced)).toBe(true);
  });

  it('keeps short values in the cursor itself', async () => {
    const { ids, cursors } = await walk({ sort: 'rank,-createdAt' }, 7);
    expect(new Set(ids).size).toBe(count);
    expect(cursors.every((cursor) => !payloadOf(cursor).v.some(isReference))).toBe(true);
  });

  it('refuses a tampered by-reference cursor', async () => {
    const { nextCursor } = await list({ sort: 'body', limit: 3 });
    const cursor = nextCursor as string;
    const [body, mac] = cursor.split('.');
    const payload = payloadOf(cursor);
    expect(isReference(payload.v[0])).toBe(true);
    const forge = (change: (copy: { v: unknown[]; i: string }) => void) => {
      const copy = structuredClone(payload);
      change(copy);
      return `${Buffer.from(JSON.stringify(copy)).toString('base64url')}.${mac}`;
    };
    for (const bad of [
      forge((copy) => (copy.v[0] = { h: '0'.repeat(24) })),
      forge((copy) => (copy.v[0] = 'A')),
      forge((copy) => (copy.i = '01900000-0000-7000-8000-000000000000')),
      `${body}.${mac.slice(1)}x`,
      `${cursor}x`,
    ]) {
      await expect(list({ sort: 'body', limit: 3, cursor: bad })).rejects.toMatchObject(refused);
    }
    await expect(list({ sort: 'body', limit: 3, cursor: 'a'.repeat(MAX_CURSOR_LENGTH + 1) })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'cursor' })],
    });
    await expect(list({ sort: '-body', limit: 3, cursor })).rejects.toMatchObject(refused);
    await expect(list({ sort: 'body', limit: 3, cursor })).resolves.toMatchObject({ items: [expect.anything(), expect.anything(), expect.anything()] });
  });

  describe('when the cursor row changes', () => {
    it.each(['body', 'rank,body', 'first,-second,body'])('refuses a by-reference cursor whose row was purged (sort %s), never an empty page', async (sort) => {
      const first = await list({ sort, limit: 3 });
      expect(payloadOf(first.nextCursor as string).v.some(isReference)).toBe(true);
      const anchor = first.items[2];
      await env.call('records.delete', { id: anchor.id, hard: true }, env.principal(org));
      await expect(list({ sort, limit: 3, cursor: first.nextCursor })).rejects.toMatchObject(refused);
    });

    it('refuses a by-reference cursor whose row was soft-deleted, as the list no longer shows that row', async () => {
      const first = await list({ sort: 'body', limit: 5 });
      expect(payloadOf(first.nextCursor as string).v.some(isReference)).toBe(true);
      await env.call('records.delete', { id: first.items[4].id }, env.principal(org));
      await expect(list({ sort: 'body', limit: 5, cursor: first.nextCursor })).rejects.toMatchObject(refused);
    });

    it('refuses a by-reference cursor whose row became hidden from the caller (row-level access)', async () => {
      const member = env.principal(org, { roles: ['member'] });
      const asMember = (input: Record<string, unknown>) => env.call<RecordListOutput>('records.list', { model: 'docs', ...input }, member);
      const first = await asMember({ sort: 'body', limit: 4 });
      expect(payloadOf(first.nextCursor as string).v.some(isReference)).toBe(true);
      const anchor = first.items[3].id;
      await env.call('records.setAccess', { id: anchor, roleIds: [org.roles['admin']] }, env.principal(org));
      try {
        await expect(asMember({ sort: 'body', limit: 4, cursor: first.nextCursor })).rejects.toMatchObject(refused);
      } finally {
        await env.call('records.setAccess', { id: anchor, roleIds: [] }, env.principal(org, { roles: ['admin'] }));
      }
    });

    it("tells nothing about a hidden row's values, even to a cursor signed with the deployment's secret", async () => {
      // Whoever holds the secret (or, before, the constant in the source) can make a cursor that
      // refers to any row with a guessed value; answering such a cursor differently for a right
      // and a wrong guess would confirm values of rows the caller cannot see.
      const [{ id: modelId }] = await env.sql<{ id: string }>(`SELECT id FROM data_models WHERE organization_id = ? AND key = 'docs'`, [org.id]);
      const em = env.db.orm.em.fork() as EntityManager;
      const scope: CursorScope = {
        organizationId: org.id,
        modelId,
        sort: parseSort('body', definitionMap((await loadLiveModel(em, org.id, 'docs')).fields)),
        filter: undefined,
      };
      const target = (await list({ sort: 'body', limit: 100 })).items.find((record) => typeof record.data['body'] === 'string') as RecordOutput;
      const body = target.data['body'] as string;
      const guess = (value: string) => encodeCursor(env.cursorSecret, scope, { values: [value], id: target.id });
      expect(payloadOf(guess(body)).v.every(isReference)).toBe(true);

      const listAs = (roles: string[], cursor: string) =>
        outcome(env.call('records.list', { model: 'docs', sort: 'body', limit: 2, cursor }, env.principal(org, { roles })));
      await env.call('records.setAccess', { id: target.id, roleIds: [org.roles['admin']] }, env.principal(org));
      try {
        // An admin sees the row: the right guess continues the list, the wrong one cannot.
        expect(await listAs(['admin'], guess(body))).toBe('ok');
        const wrong = await listAs(['admin'], guess(`${body}?`));
        expect(wrong).toMatchObject(refused);
        // A member does not: right guess, wrong guess and random characters answer alike.
        expect(await listAs(['member'], guess(body))).toEqual(wrong);
        expect(await listAs(['member'], guess(`${body}?`))).toEqual(wrong);
        expect(await listAs(['member'], `${Buffer.from('{}').toString('base64url')}.${'A'.repeat(22)}`)).toEqual(wrong);
      } finally {
        await env.call('records.setAccess', { id: target.id, roleIds: [] }, env.principal(org, { roles: ['admin'] }));
      }
    });

    it("refuses a by-reference cursor whose row's sort value changed", async () => {
      const first = await list({ sort: 'body', limit: 4 });
      expect(payloadOf(first.nextCursor as string).v.some(isReference)).toBe(true);
      const anchor = first.items[3];
      await env.call('records.update', { id: anchor.id, data: { body: `${String(anchor.data['body'])}!` } }, env.principal(org));
      await expect(list({ sort: 'body', limit: 4, cursor: first.nextCursor })).rejects.toMatchObject(refused);
      // Other fields of that row may change.
      const again = await list({ sort: 'first,second', limit: 4 });
      await env.call('records.update', { id: again.items[3].id, data: { rank: 99 } }, env.principal(org));
      await expect(list({ sort: 'first,second', limit: 4, cursor: again.nextCursor })).resolves.toMatchObject({ items: expect.any(Array) });
    });

    it('ends the list with an empty page when only the rows after a by-reference cursor are gone', async () => {
      const filter = { field: 'rank', op: 'eq', value: 2 };
      const all = (await list({ sort: 'body', filter, limit: 100 })).items;
      expect(all.length).toBeGreaterThan(3);
      const first = await list({ sort: 'body', filter, limit: all.length - 2 });
      expect(payloadOf(first.nextCursor as string).v.some(isReference)).toBe(true);
      for (const record of all.slice(-2)) await env.call('records.delete', { id: record.id }, env.principal(org));
      await expect(list({ sort: 'body', filter, limit: all.length - 2, cursor: first.nextCursor })).resolves.toEqual({ items: [], nextCursor: null });
    });

    it('continues a by-value cursor whose row was purged', async () => {
      const first = await list({ sort: 'rank', limit: 3 });
      expect(payloadOf(first.nextCursor as string).v.some(isReference)).toBe(false);
      const expected = (await list({ sort: 'rank', limit: 100 })).items.map((record) => record.id);
      await env.call('records.delete', { id: first.items[2].id, hard: true }, env.principal(org));
      const second = await list({ sort: 'rank', limit: 3, cursor: first.nextCursor });
      expect(second.items.map((record) => record.id)).toEqual(expected.slice(3, 6));
    });
  });

  it('returns every old record exactly once by a long sort while records are inserted between pages', async () => {
    const old = new Set(await liveIds());
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(900).slice(0, 49_990);
    const { ids } = await walk({ sort: 'body' }, 3, async (page) => {
      await Promise.all(
        ['a', 'd', 'h'].map((letter) =>
          env.call('records.create', { model: 'docs', data: { title: `New ${page}${letter}`, body: `A${filler}${letter}y` } }, env.principal(org)),
        ),
      );
    });
    expect([...old].filter((id) => ids.filter((seen) => seen === id).length !== 1)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('records.list by-reference cursors (plans)', () => {
  let env: DataModelsTestEnv;
  let org: TestOrganization;
  let modelId: string;
  beforeAll(async () => {
    env = await createDataModelsTestEnv();
    org = await env.createOrganization();
    await env.call('dataModels.create', { key: 'bulk', name: 'Bulk' }, env.principal(org));
    [{ id: modelId }] = await env.sql<{ id: string }>(`SELECT id FROM data_models WHERE organization_id = ? AND key = 'bulk'`, [org.id]);
    await env.sql(
      `INSERT INTO records (id, organization_id, model_id, title, data, created_by, updated_by)
       SELECT gen_random_uuid(), ?, ?, t, jsonb_build_object('title', t), 'seed', 'seed'
       FROM generate_series(1, 5000) g, LATERAL (SELECT lpad(g::text, 5, '0') || repeat(' Ωμέγα ключ', 60) AS t) v`,
      [org.id, modelId],
    );
    await env.sql('ANALYZE records');
  });
  afterAll(() => env.close());

  /** The plan of the exact SQL records.list runs after `cursor`, with seq scans priced out as in the index specs. */
  const plan = async (sort: string, cursor: string, explain = 'EXPLAIN') => {
    const em = env.db.orm.em.fork() as EntityManager;
    const fields = definitionMap((await loadLiveModel(em, org.id, 'bulk')).fields);
    const plan = parseSort(sort, fields);
    const after = decodeCursor(env.cursorSecret, { organizationId: org.id, modelId, sort: plan, filter: undefined }, cursor);
    const query = buildListQuery({ organizationId: org.id, modelId, roleIds: [], fields, sort: plan, after, limit: 26 });
    return em.transactional(async (tx) => {
      await tx.execute('SET LOCAL enable_seqscan = off');
      const rows = await tx.execute<Array<{ 'QUERY PLAN': string }>>(`${explain} ${query.text}`, [...query.params]);
      return { after, text: rows.map((row) => row['QUERY PLAN']).join('\n') };
    });
  };

  it('seeks the title index from the values read by primary key, as a by-value cursor does', async () => {
    const page = await env.call<RecordListOutput>('records.list', { model: 'bulk', sort: 'title', limit: 25 }, env.principal(org));
    const { after, text } = await plan('title', page.nextCursor as string);
    expect(isReference(after.values[0])).toBe(true);
    expect(text).toMatch(/CTE cursor_row\n\s+->\s+Index Scan using records_pkey/);
    // The cursor row's value is an InitPlan parameter: `$6` in PostgreSQL 15's EXPLAIN, `(InitPlan 7).col1` in 17's.
    expect(text).toMatch(
      /Index Scan using records_live_by_title on records r\s.*\n\s+Index Cond: \(.*"left"\(title, 200\) >= "left"\((\$\d+|\(InitPlan \d+\)\.col1), 200\)/,
    );
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('reads a deep page by reference like page 1: one primary-key lookup and a page of index entries', async () => {
    const [deep] = await env.sql<{ id: string; title: string }>(
      `SELECT id, title FROM records WHERE model_id = ? ORDER BY left(title, 200), title, id OFFSET 4000 LIMIT 1`,
      [modelId],
    );
    const sort = parseSort('title', new Map());
    const cursor = encodeCursor(env.cursorSecret, { organizationId: org.id, modelId, sort, filter: undefined }, { values: [deep.title], id: deep.id });
    const { after, text } = await plan('title', cursor, 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)');
    expect(isReference(after.values[0])).toBe(true);
    const scanned = Number(/Index Scan using records_live_by_title on records r \(actual rows=(\d+)/.exec(text)?.[1]);
    expect(scanned).toBeGreaterThanOrEqual(26);
    expect(scanned).toBeLessThanOrEqual(30);
    const page = await env.call<RecordListOutput>('records.list', { model: 'bulk', sort: 'title', limit: 3, cursor }, env.principal(org));
    expect(page.items.map((record) => record.title.slice(0, 5))).toEqual(['04002', '04003', '04004']);
  });
});
