import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';

interface Board {
  id: string;
}
interface Card {
  record: { id: string; title: string };
  position: string;
  assigneeUserIds: string[];
}
interface BoardWithCards {
  columns: Array<{ id: string; label: string; cards: Card[]; nextCursor: string | null }>;
}

let api: TestApi;
let org: OrganizationWithKey;
let board: Board;
const events: EventEnvelope[] = [];

const newCard = (title: string, status: string | null = 'open') =>
  org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title, ...(status ? { status } : {}) } });
const boardCards = async (session?: string) => org.rpc<BoardWithCards>('kanban.boards.get', { id: board.id, cardsPerColumn: 100 }, session);
const titlesIn = async (column: string, session?: string) =>
  (await boardCards(session)).columns.find((candidate) => candidate.id === column)?.cards.map((card) => card.record.title);

/** The events of these types the bus heard about this card since the mark. */
function eventsAbout(recordId: string, since: number, types: string[]): string[] {
  return events
    .slice(since)
    .filter((event) => types.includes(event.type))
    .filter((event) => (event.payload as { recordId?: string; cardId?: string }).recordId === recordId || (event.payload as { cardId?: string }).cardId === recordId)
    .map((event) => event.type);
}

beforeAll(async () => {
  api = await startTestApi({ PUBLIC_API_RATE_PER_SECOND: '1000', PUBLIC_API_BURST: '1000' });
  api.runtime.bus.subscribe('*', (event) => {
    events.push(event);
  });
  org = await createOrganizationWithKey(api);
  board = await org.rpc<Board>('kanban.boards.create', { name: 'Work', modelKey: org.modelKey, fieldKey: 'status' });
});
afterAll(() => api.close());

describe('boards over a model', () => {
  it('shows the field options as columns and the records as cards, existing ones included', async () => {
    const existing = await newCard('Before the board', 'done');
    const second = await org.rpc<Board>('kanban.boards.create', { name: 'Second', modelKey: org.modelKey, fieldKey: 'status' });
    const view = await org.rpc<BoardWithCards>('kanban.boards.get', { id: second.id });
    expect(view.columns.map((column) => [column.id, column.label])).toEqual([
      ['open', 'Open'],
      ['done', 'Done'],
    ]);
    expect(view.columns[1].cards.map((card) => card.record.id)).toContain(existing.id);
    await org.rpc('kanban.boards.delete', { id: second.id });
  });

  it('refuses a field that is not a SELECT', async () => {
    const { status, body } = await api.rpc('kanban.boards.create', { name: 'Bad', modelKey: org.modelKey, fieldKey: 'notes' }, { token: org.owner.session, organizationId: org.organizationId });
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: 'validation_failed', details: [{ field: 'fieldKey', code: 'invalid_type' }] } });
  });
});

describe('card events, by every door, exactly once', () => {
  it('kanban.cards.move: one record-updated and one card-moved with from and to', async () => {
    const card = await newCard('Moved by the board');
    const mark = events.length;
    await org.rpc('kanban.cards.move', { boardId: board.id, recordId: card.id, column: 'done' });
    await api.runtime.bus.idle();
    expect(eventsAbout(card.id, mark, ['data-models.record-updated', 'kanban.card-moved'])).toEqual(['data-models.record-updated', 'kanban.card-moved']);
    expect(events.slice(mark).find((event) => event.type === 'kanban.card-moved')?.payload).toMatchObject({ fromColumnId: 'open', toColumnId: 'done' });
  });

  it('/rpc records.update: the card moves to the end of its new column', async () => {
    const card = await newCard('Moved by rpc');
    const mark = events.length;
    await org.rpc('records.update', { id: card.id, data: { status: 'done' } });
    await api.runtime.bus.idle();
    expect(eventsAbout(card.id, mark, ['data-models.record-updated', 'kanban.card-moved'])).toEqual(['data-models.record-updated', 'kanban.card-moved']);
    expect((await titlesIn('done'))?.at(-1)).toBe('Moved by rpc');
  });

  it('/api/v1 PATCH: card-moved, and card-updated for other fields', async () => {
    const card = await newCard('Moved by REST');
    const mark = events.length;
    const response = await publicApi(api, org.key.token).patch(`/records/${card.id}`, { data: { status: 'done', notes: 'via REST' } });
    expect(response.status).toBe(200);
    await api.runtime.bus.idle();
    expect(eventsAbout(card.id, mark, ['data-models.record-updated', 'kanban.card-moved', 'kanban.card-updated'])).toEqual([
      'data-models.record-updated',
      'kanban.card-moved',
      'kanban.card-updated',
    ]);
    expect(events.slice(mark).find((event) => event.type === 'kanban.card-updated')?.payload).toMatchObject({ changes: ['notes'] });
  });

  it('created and deleted records are cards created and deleted; a record with no value is no card', async () => {
    const mark = events.length;
    const card = await newCard('Born on the board');
    const loose = await newCard('No column', null);
    await publicApi(api, org.key.token).delete(`/records/${card.id}`);
    await api.runtime.bus.idle();
    expect(eventsAbout(card.id, mark, ['kanban.card-created', 'kanban.card-deleted'])).toEqual(['kanban.card-created', 'kanban.card-deleted']);
    expect(eventsAbout(loose.id, mark, ['kanban.card-created', 'kanban.card-updated'])).toEqual([]);
    expect(await titlesIn('open')).not.toContain('Born on the board');
  });

  it('a move within a column places the card before another and says so once', async () => {
    const [a, , c] = [await newCard('A'), await newCard('B'), await newCard('C')];
    const mark = events.length;
    await org.rpc('kanban.cards.move', { boardId: board.id, recordId: c.id, column: 'open', before: a.id });
    await api.runtime.bus.idle();
    expect(eventsAbout(c.id, mark, ['data-models.record-updated', 'kanban.card-moved'])).toEqual(['kanban.card-moved']);
    const open = await titlesIn('open');
    expect(open?.filter((title) => ['A', 'B', 'C'].includes(title))).toEqual(['C', 'A', 'B']);
  });
});

describe('positions under concurrency', () => {
  it('20 concurrent moves into one column keep a total order with no duplicate or lost place', async () => {
    const column = 'done';
    const cards = await Promise.all(Array.from({ length: 20 }, (_, index) => newCard(`Rush ${index}`)));
    await Promise.all(cards.map((card) => org.rpc('kanban.cards.move', { boardId: board.id, recordId: card.id, column })));
    const rows = await queryDatabase<{ record_id: string; position: string }>(
      api,
      'SELECT record_id, position FROM kanban_card_positions WHERE board_id = $1 AND column_id = $2',
      [board.id, column],
    );
    for (const card of cards) expect(rows.filter((row) => row.record_id === card.id)).toHaveLength(1);
    expect(new Set(rows.map((row) => row.position)).size).toBe(rows.length);
    const listed = (await titlesIn(column)) ?? [];
    expect(listed.filter((title) => title.startsWith('Rush ')).sort()).toEqual(cards.map((_, index) => `Rush ${index}`).sort());
  });
});

describe('row-level access', () => {
  it('a record hidden from a member never appears on their board or calendar', async () => {
    const reader = await org.addMember(['member']);
    await org.rpc('dataModels.fields.create', { model: org.modelKey, key: 'due', name: 'Due', type: 'DATETIME', indexed: true });
    const calendar = await org.rpc<{ id: string }>('calendars.create', { name: 'Due', modelKey: org.modelKey, startFieldKey: 'due' });
    const secret = await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Secret', status: 'open', due: '2030-01-02T10:00:00Z' } });
    const shown = await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Shown', status: 'open', due: '2030-01-02T11:00:00Z' } });
    const roles = await org.rpc<{ items: Array<{ id: string; key: string }> }>('rbac.roles.list', {});
    await org.rpc('records.setAccess', { id: secret.id, roleIds: [roles.items.find((role) => role.key === 'owner')!.id] });

    expect(await titlesIn('open', reader.session)).toContain('Shown');
    expect(await titlesIn('open', reader.session)).not.toContain('Secret');
    expect(await titlesIn('open')).toContain('Secret');
    const window = { id: calendar.id, from: '2030-01-01T00:00:00Z', to: '2030-01-03T00:00:00Z' };
    const theirs = await org.rpc<{ items: Array<{ id: string }> }>('calendars.events', window, reader.session);
    expect(theirs.items.map((record) => record.id)).toEqual([shown.id]);
    const owners = await org.rpc<{ items: Array<{ id: string }> }>('calendars.events', window);
    expect(owners.items.map((record) => record.id)).toEqual([secret.id, shown.id]);
    const { status } = await api.rpc('kanban.cards.move', { boardId: board.id, recordId: secret.id, column: 'done' }, { token: reader.session, organizationId: org.organizationId });
    expect(status).toBe(404);
  });
});

describe('assignments', () => {
  it('notifies each new assignee once and refuses non-members', async () => {
    const [first, second] = [await org.addMember(['member'], 'first'), await org.addMember(['member'], 'second')];
    const card = await newCard('Assigned');
    const mark = events.length;
    await org.rpc('kanban.cards.assign', { boardId: board.id, recordId: card.id, userIds: [first.user.sub] });
    await org.rpc('kanban.cards.assign', { boardId: board.id, recordId: card.id, userIds: [first.user.sub, second.user.sub] });
    await api.runtime.bus.idle();
    const assigned = events.slice(mark).filter((event) => event.type === 'kanban.card-assigned');
    expect(assigned.map((event) => (event.payload as { assigneeUserId: string }).assigneeUserId)).toEqual([first.user.sub, second.user.sub]);
    for (const member of [first, second]) {
      const inbox = await org.rpc<{ items: Array<{ kind: string }> }>('notifications.list', {}, member.session);
      expect(inbox.items.filter((item) => item.kind === 'kanban.card-assigned')).toHaveLength(1);
    }
    const view = await boardCards();
    expect(view.columns[0].cards.find((item) => item.record.id === card.id)?.assigneeUserIds.sort()).toEqual([first.user.sub, second.user.sub].sort());

    const { status, body } = await api.rpc(
      'kanban.cards.assign',
      { boardId: board.id, recordId: card.id, userIds: ['0190aaaa-0000-7000-8000-00000000dead'] },
      { token: org.owner.session, organizationId: org.organizationId },
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: 'validation_failed', details: [{ field: 'userIds[0]', code: 'not_found' }] } });
  });
});

describe('columns', () => {
  it('creates, renames and reorders columns through the field', async () => {
    const mark = events.length;
    await org.rpc('kanban.columns.create', { boardId: board.id, id: 'review', label: 'Review', before: 'done' });
    await org.rpc('kanban.columns.update', { boardId: board.id, id: 'review', label: 'In review' });
    await api.runtime.bus.idle();
    expect(events.slice(mark).filter((event) => event.type === 'kanban.column-created').map((event) => event.payload)).toEqual([
      { boardId: board.id, columnId: 'review', name: 'Review' },
    ]);
    const fields = await org.rpc<{ items: Array<{ key: string; config: { options: Array<{ value: string; label: string }> } }> }>('dataModels.fields.list', {
      model: org.modelKey,
    });
    expect(fields.items.find((field) => field.key === 'status')?.config.options.map((option) => [option.value, option.label])).toEqual([
      ['open', 'Open'],
      ['review', 'In review'],
      ['done', 'Done'],
    ]);
    const reordered = await org.rpc<{ columns: Array<{ id: string }> }>('kanban.columns.reorder', { boardId: board.id, ids: ['done', 'review', 'open'] });
    expect(reordered.columns.map((column) => column.id)).toEqual(['done', 'review', 'open']);
  });

  it('a column holding cards is deleted only with a target column, where its cards go first', async () => {
    await org.rpc('kanban.columns.create', { boardId: board.id, id: 'parked', label: 'Parked' });
    const card = await newCard('Parked card', 'parked');
    const refused = await api.rpc('kanban.columns.delete', { boardId: board.id, id: 'parked' }, { token: org.owner.session, organizationId: org.organizationId });
    expect(refused.status).toBe(409);
    const mark = events.length;
    await org.rpc('kanban.columns.delete', { boardId: board.id, id: 'parked', targetColumnId: 'open' });
    await api.runtime.bus.idle();
    expect(eventsAbout(card.id, mark, ['kanban.card-moved'])).toEqual(['kanban.card-moved']);
    const view = await boardCards();
    expect(view.columns.map((column) => column.id)).not.toContain('parked');
    expect(view.columns.find((column) => column.id === 'open')?.cards.map((item) => item.record.id)).toContain(card.id);
  });
});

describe('paging a column', () => {
  it('kanban.cards.list pages in position order', async () => {
    await org.rpc('kanban.columns.create', { boardId: board.id, id: 'paged', label: 'Paged' });
    const cards = [];
    for (let index = 0; index < 5; index++) cards.push(await newCard(`Page ${index}`, 'paged'));
    const first = await org.rpc<{ items: Card[]; nextCursor: string }>('kanban.cards.list', { boardId: board.id, column: 'paged', limit: 3 });
    const rest = await org.rpc<{ items: Card[]; nextCursor: string | null }>('kanban.cards.list', { boardId: board.id, column: 'paged', limit: 3, cursor: first.nextCursor });
    expect([...first.items, ...rest.items].map((card) => card.record.id)).toEqual(cards.map((card) => card.id));
    expect(rest.nextCursor).toBeNull();
  });
});
