import { randomUUID } from 'node:crypto';
import { platformModule, newId, runInTransaction, type EventEnvelope } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { createTestOrm, type TestOrm } from '@mrp/platform/testing';
import { createBoardRoutes } from '../boards/board-rows';
import { viewsModule } from '../views-module';
import { createCardEventDeriver } from './card-event-deriver';
import { placesInColumn } from './card-positions';

let db: TestOrm;
let organizationId: string;
let boardId: string;
const deriver = createCardEventDeriver(createBoardRoutes());
const fork = () => db.orm.em.fork();

function recordEvent(type: string, payload: Record<string, unknown>, organization = organizationId): EventEnvelope {
  return { id: newId(), type, occurredAt: new Date().toISOString(), correlationId: 'req-1', organizationId: organization, payload };
}
const record = (id: string, status: string | null, title = 'Card') => ({ id, model: 'tasks', title, data: { title, ...(status ? { status } : {}) } });
const created = (id: string, status: string | null) => recordEvent('data-models.record-created', { modelKey: 'tasks', recordId: id, record: record(id, status) });
const updated = (id: string, changedFields: string[], previous: Record<string, unknown>, status: string | null) =>
  recordEvent('data-models.record-updated', { modelKey: 'tasks', recordId: id, changedFields, previous, record: record(id, status) });
const deleted = (id: string) => recordEvent('data-models.record-deleted', { modelKey: 'tasks', recordId: id, hard: false });

const derive = (events: EventEnvelope[]) => runInTransaction(fork(), (em) => deriver.derive(em, events));
const shape = (events: EventEnvelope[]) => events.map((event) => ({ type: event.type, payload: event.payload }));

beforeAll(async () => {
  db = await createTestOrm([platformModule, authzModule, viewsModule]);
  organizationId = newId();
  await fork().execute("INSERT INTO organizations (id, name, slug, created_by) VALUES (?, 'Org', ?, 'someone')", [organizationId, `org-${organizationId}`]);
  boardId = newId();
  await fork().execute("INSERT INTO kanban_boards (id, organization_id, name, model_key, field_key, created_by) VALUES (?, ?, 'Board', 'tasks', 'status', 'someone')", [
    boardId,
    organizationId,
  ]);
});
afterAll(() => db.close());

describe('card events derived from record events', () => {
  it('a record created with a value in the board field is a card created last in its column', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    expect(shape(await derive([created(a, 'todo'), created(b, 'todo')]))).toEqual([
      { type: 'kanban.card-created', payload: { boardId, columnId: 'todo', cardId: a, title: 'Card', modelKey: 'tasks' } },
      { type: 'kanban.card-created', payload: { boardId, columnId: 'todo', cardId: b, title: 'Card', modelKey: 'tasks' } },
    ]);
    expect((await placesInColumn(fork(), boardId, 'todo', undefined, 10)).map((place) => place.recordId)).toEqual([a, b]);
  });

  it('carries the source event\'s correlation id and organization', async () => {
    const [event] = await derive([created(randomUUID(), 'todo')]);
    expect(event).toMatchObject({ correlationId: 'req-1', organizationId, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('a record with no value in the field is on no column: no card event', async () => {
    const id = randomUUID();
    expect(await derive([created(id, null)])).toEqual([]);
    expect(await derive([updated(id, ['title'], { title: 'Old' }, null)])).toEqual([]);
  });

  it('a changed value is a move with from and to; other changed fields are a card update', async () => {
    const id = randomUUID();
    await derive([created(id, 'todo')]);
    expect(shape(await derive([updated(id, ['status', 'title'], { status: 'todo', title: 'Old' }, 'done')]))).toEqual([
      { type: 'kanban.card-moved', payload: { boardId, cardId: id, fromColumnId: 'todo', toColumnId: 'done', modelKey: 'tasks' } },
      { type: 'kanban.card-updated', payload: { boardId, cardId: id, changes: ['title'], modelKey: 'tasks' } },
    ]);
    expect((await placesInColumn(fork(), boardId, 'done', undefined, 10)).map((place) => place.recordId)).toContain(id);
  });

  it('a value set is a card created; a value cleared or a record deleted is a card deleted', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await derive([created(a, null), created(b, 'todo')]);
    expect(shape(await derive([updated(a, ['status'], { status: null }, 'todo')]))).toEqual([
      { type: 'kanban.card-created', payload: { boardId, columnId: 'todo', cardId: a, title: 'Card', modelKey: 'tasks' } },
    ]);
    expect(shape(await derive([updated(a, ['status'], { status: 'todo' }, null)]))).toEqual([
      { type: 'kanban.card-deleted', payload: { boardId, cardId: a, modelKey: 'tasks' } },
    ]);
    expect(shape(await derive([deleted(b)]))).toEqual([{ type: 'kanban.card-deleted', payload: { boardId, cardId: b, modelKey: 'tasks' } }]);
    expect(await derive([deleted(b)])).toEqual([]);
  });

  it('a record of another model or organization derives nothing', async () => {
    const other = recordEvent('data-models.record-created', { modelKey: 'notes', recordId: randomUUID(), record: record(randomUUID(), 'todo') });
    const otherOrganization = { ...created(randomUUID(), 'todo'), organizationId: newId() };
    expect(await derive([other, otherOrganization])).toEqual([]);
  });
});
