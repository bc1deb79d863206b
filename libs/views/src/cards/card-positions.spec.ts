import { randomUUID } from 'node:crypto';
import { platformModule, newId, runInTransaction } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { viewsModule } from '../views-module';
import { placeAtEnd, placeBefore, placeNewAtEnd, placesInColumn, removeCard } from './card-positions';

let db: TestOrm;
let boardId: string;

const fork = () => db.orm.em.fork();
const inTransaction = <T>(work: Parameters<typeof runInTransaction<T>>[1]) => runInTransaction(fork(), work);
const order = async (column: string) => (await placesInColumn(fork(), boardId, column, undefined, 1000)).map((place) => place.recordId);

beforeAll(async () => {
  db = await createTestOrm([platformModule, authzModule, viewsModule]);
  const organizationId = newId();
  await fork().execute("INSERT INTO organizations (id, name, slug, created_by) VALUES (?, 'Org', ?, 'someone')", [organizationId, `org-${organizationId}`]);
  boardId = newId();
  await fork().execute("INSERT INTO kanban_boards (id, organization_id, name, model_key, field_key, created_by) VALUES (?, ?, 'Board', 'tasks', 'status', 'someone')", [
    boardId,
    organizationId,
  ]);
});
afterAll(() => db.close());

describe('card positions', () => {
  it('puts cards last, or before a given card, without touching the others', async () => {
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const id of [a, b, c]) await inTransaction((em) => placeAtEnd(em, boardId, id, 'todo'));
    const before = await placesInColumn(fork(), boardId, 'todo', undefined, 10);
    await inTransaction((em) => placeBefore(em, boardId, d, 'todo', b));
    await inTransaction((em) => placeBefore(em, boardId, c, 'todo', a));
    expect(await order('todo')).toEqual([c, a, d, b]);
    // a and b kept their keys: a move writes one row.
    const after = await placesInColumn(fork(), boardId, 'todo', undefined, 10);
    for (const id of [a, b]) {
      expect(after.find((place) => place.recordId === id)?.position).toBe(before.find((place) => place.recordId === id)?.position);
    }
  });

  it('refuses a place before a card that is not in the column, or before itself', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await inTransaction((em) => placeAtEnd(em, boardId, a, 'refused'));
    await expect(inTransaction((em) => placeBefore(em, boardId, b, 'refused', randomUUID()))).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(inTransaction((em) => placeBefore(em, boardId, a, 'refused', a))).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('keeps a total order with distinct keys when 20 cards arrive in one column at once', async () => {
    const ids = Array.from({ length: 20 }, () => randomUUID());
    // Half of them first sit in another column: they move, the others are new.
    for (const id of ids.slice(0, 10)) await inTransaction((em) => placeAtEnd(em, boardId, id, 'elsewhere'));
    await Promise.all(ids.map((id) => inTransaction((em) => placeAtEnd(em, boardId, id, 'crowded'))));
    const places = await placesInColumn(fork(), boardId, 'crowded', undefined, 100);
    expect(places.map((place) => place.recordId).sort()).toEqual([...ids].sort());
    expect(new Set(places.map((place) => place.position)).size).toBe(20);
    const keys = places.map((place) => place.position);
    expect([...keys].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))).toEqual(keys);
    expect(await order('elsewhere')).toEqual([]);
  });

  it('pages a column with a cursor of (position, record id)', async () => {
    const ids = Array.from({ length: 5 }, () => randomUUID());
    await inTransaction((em) => placeNewAtEnd(em, boardId, 'paged', ids));
    const first = await placesInColumn(fork(), boardId, 'paged', undefined, 2);
    const last = first[first.length - 1];
    const rest = await placesInColumn(fork(), boardId, 'paged', { position: last.position, recordId: last.recordId }, 10);
    expect([...first, ...rest].map((place) => place.recordId)).toEqual(ids);
  });

  it('removes a card from its board', async () => {
    const id = randomUUID();
    await inTransaction((em) => placeAtEnd(em, boardId, id, 'gone'));
    await expect(inTransaction((em) => removeCard(em, [boardId], id))).resolves.toEqual([{ boardId, columnId: 'gone' }]);
    expect(await order('gone')).toEqual([]);
  });
});
