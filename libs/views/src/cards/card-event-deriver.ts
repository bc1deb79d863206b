import type { EntityManager } from '@mikro-orm/postgresql';
import { newId, type EventEnvelope, type PendingEvent } from '@mrp/platform';
import { createEvent, type EventCatalog, type EventDeriver, type RouteCache } from '@mrp/events';
import type { BoardRoute } from '../boards/board-rows';
import { placeAtEnd, placeOf, removeCard } from './card-positions';

const RECORD_EVENTS = new Set(['data-models.record-created', 'data-models.record-updated', 'data-models.record-deleted']);

type RecordCreated = EventCatalog['data-models.record-created'];
type RecordUpdated = EventCatalog['data-models.record-updated'];
type RecordDeleted = EventCatalog['data-models.record-deleted'];

interface RecordShape {
  title?: unknown;
  data?: Record<string, unknown>;
}

/** The column a value of the board's field puts a record in; null (no value) puts it on none. */
function columnOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

const recordColumn = (record: Record<string, unknown>, fieldKey: string) => columnOf((record as RecordShape).data?.[fieldKey]);
const recordTitle = (record: Record<string, unknown>) => String((record as RecordShape).title ?? '');

/**
 * A derived event carries its source's correlation id, cause and record access: the same change,
 * seen as a card, reaches only the webhooks that may read the record.
 */
function stamp(source: EventEnvelope, event: PendingEvent): EventEnvelope {
  return {
    id: newId(),
    occurredAt: new Date().toISOString(),
    ...(source.correlationId !== undefined ? { correlationId: source.correlationId } : {}),
    ...event,
    ...(source.causedBy ? { causedBy: source.causedBy } : {}),
    ...(source.metadata ? { metadata: source.metadata } : {}),
    ...(source.recordAccess ? { recordAccess: source.recordAccess } : {}),
  };
}

async function cardEventsOf(em: EntityManager, board: BoardRoute, event: EventEnvelope): Promise<PendingEvent[]> {
  const scope = { organizationId: board.organization_id };
  const boardId = board.id;
  const field = board.field_key;
  if (event.type === 'data-models.record-created') {
    const { recordId, record, modelKey } = event.payload as RecordCreated;
    const columnId = recordColumn(record, field);
    if (!columnId) return [];
    await placeAtEnd(em, boardId, recordId, columnId);
    return [createEvent('kanban.card-created', { boardId, columnId, cardId: recordId, title: recordTitle(record), modelKey }, scope)];
  }
  if (event.type === 'data-models.record-deleted') {
    const { recordId, modelKey, hard } = event.payload as RecordDeleted;
    const removed = await removeCard(em, [boardId], recordId);
    // A purged record's assignments go with it; a soft-deleted one keeps them, should it be restored.
    if (hard) await em.execute('DELETE FROM kanban_card_assignees WHERE board_id = ? AND record_id = ?', [boardId, recordId]);
    return removed.length > 0 ? [createEvent('kanban.card-deleted', { boardId, cardId: recordId, modelKey }, scope)] : [];
  }
  const { recordId, record, modelKey, changedFields, previous } = event.payload as RecordUpdated;
  const columnId = recordColumn(record, field);
  const others = changedFields.filter((key) => key !== field);
  const events: PendingEvent[] = [];
  let wasCard = columnId !== null;
  if (changedFields.includes(field)) {
    const fromColumnId = columnOf(previous?.[field]);
    wasCard = fromColumnId !== null;
    if (!columnId) {
      await removeCard(em, [boardId], recordId);
      return fromColumnId ? [createEvent('kanban.card-deleted', { boardId, cardId: recordId, modelKey }, scope)] : [];
    }
    // kanban.cards.move has already put the card where it asked; any other door puts it last.
    if ((await placeOf(em, boardId, recordId))?.columnId !== columnId) await placeAtEnd(em, boardId, recordId, columnId);
    events.push(
      fromColumnId
        ? createEvent('kanban.card-moved', { boardId, cardId: recordId, fromColumnId, toColumnId: columnId, modelKey }, scope)
        : createEvent('kanban.card-created', { boardId, columnId, cardId: recordId, title: recordTitle(record), modelKey }, scope),
    );
  } else if (columnId && !(await placeOf(em, boardId, recordId))) {
    // A card without a place: back from a soft delete (a restore changes no field), or one the
    // board's creator could not see when the board was made. It takes the end of its column.
    await placeAtEnd(em, boardId, recordId, columnId);
    if (changedFields.length === 0) events.push(createEvent('kanban.card-created', { boardId, columnId, cardId: recordId, title: recordTitle(record), modelKey }, scope));
  }
  if (wasCard && columnId && others.length > 0) events.push(createEvent('kanban.card-updated', { boardId, cardId: recordId, changes: others, modelKey }, scope));
  return events;
}

/**
 * Card events for every door: a record event of a model some board shows becomes the matching
 * kanban event, per board (created, moved with from and to, updated, deleted), and the card's
 * place is kept in step in the same transaction. Runs in the event dispatcher, so records.* over
 * /rpc, /api/v1 PATCH, automations and kanban.cards.move all yield the same events, once.
 */
export function createCardEventDeriver(routes: RouteCache<BoardRoute>): EventDeriver {
  return {
    async derive(em, events) {
      const recordEvents = events.filter((event) => RECORD_EVENTS.has(event.type) && event.organizationId !== undefined);
      if (recordEvents.length === 0) return [];
      const organizationIds = [...new Set(recordEvents.map((event) => event.organizationId as string))];
      const boards = await routes.routesFor(em, organizationIds);
      if (boards.length === 0) return [];
      const derived: EventEnvelope[] = [];
      for (const event of recordEvents) {
        const modelKey = (event.payload as { modelKey?: unknown }).modelKey;
        for (const board of boards) {
          if (board.organization_id !== event.organizationId || board.model_key !== modelKey) continue;
          for (const card of await cardEventsOf(em, board, event)) derived.push(stamp(event, card));
        }
      }
      return derived;
    },
  };
}
