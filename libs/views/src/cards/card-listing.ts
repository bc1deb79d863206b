import { badRequest, sqlTextArray, type ProcedureContext } from '@mrp/platform';
import type { BoardRow } from '../boards/board-rows';
import type { ModelCall, RecordView } from '../model-calls';
import type { CardView } from './card-schemas';
import { placesInColumn } from './card-positions';

/** Places read per round, and record ids asked of records.list at once (its `in` takes up to 100). */
const BATCH = 100;
/** Places looked at per page at most: a caller who may read few of a long column's cards gets short pages and a cursor, not a scan of the column. */
const MAX_BATCHES = 5;

export interface CardPage {
  cards: CardView[];
  nextCursor: string | null;
}

interface CardCursor {
  position: string;
  recordId: string;
}

const encodeCursor = (cursor: CardCursor) => Buffer.from(JSON.stringify([cursor.position, cursor.recordId])).toString('base64url');

function decodeCursor(text: string): CardCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && /^[0-9a-f-]{36}$/.test(value[1])) {
      return { position: value[0], recordId: value[1] };
    }
  } catch {
    // Refused below, like any other text that is not a cursor.
  }
  throw badRequest('The cursor is invalid');
}

async function assigneesOf(ctx: ProcedureContext, boardId: string, recordIds: readonly string[]): Promise<Map<string, string[]>> {
  const byRecord = new Map<string, string[]>();
  if (recordIds.length === 0) return byRecord;
  const rows = await ctx.em.execute<Array<{ record_id: string; user_id: string }>>(
    'SELECT record_id, user_id FROM kanban_card_assignees WHERE board_id = ? AND record_id = ANY(?::uuid[]) ORDER BY assigned_at, user_id',
    [boardId, sqlTextArray(recordIds)],
  );
  for (const row of rows) byRecord.set(row.record_id, [...(byRecord.get(row.record_id) ?? []), row.user_id]);
  return byRecord;
}

/**
 * One page of a column's cards, in position order. The places come from this lib's table; the
 * records from records.list as the caller, filtered on the board's field and the page's ids, so
 * row-level access, soft deletes and the caller's permissions decide what is shown: a card the
 * caller may not read is skipped as if it were not there.
 */
export async function columnPage(call: ModelCall, ctx: ProcedureContext, board: BoardRow, columnId: string, cursor: string | undefined, limit: number): Promise<CardPage> {
  let after = cursor === undefined ? undefined : decodeCursor(cursor);
  const found: Array<{ record: RecordView; position: string }> = [];
  let batches = 0;
  let more = false;
  while (found.length <= limit) {
    if (batches++ === MAX_BATCHES) {
      more = true;
      break;
    }
    const places = await placesInColumn(ctx.em, board.id, columnId, after, BATCH);
    if (places.length === 0) break;
    const page = await call(ctx, 'records.list', {
      model: board.model_key,
      limit: BATCH,
      filter: {
        and: [
          { field: board.field_key, op: 'eq', value: columnId },
          { field: 'id', op: 'in', value: places.map((place) => place.recordId) },
        ],
      },
    });
    const visible = new Map(page.items.map((record) => [record.id, record]));
    for (const place of places) {
      const record = visible.get(place.recordId);
      if (record) found.push({ record, position: place.position });
    }
    const last = places[places.length - 1];
    after = { position: last.position, recordId: last.recordId };
    if (places.length < BATCH) break;
  }
  const shown = found.slice(0, limit);
  const assignees = await assigneesOf(ctx, board.id, shown.map((card) => card.record.id));
  const lastShown = shown[shown.length - 1];
  return {
    cards: shown.map((card) => ({ ...card, assigneeUserIds: assignees.get(card.record.id) ?? [] })),
    nextCursor:
      found.length > limit && lastShown
        ? encodeCursor({ position: lastShown.position, recordId: lastShown.record.id })
        : more && after
          ? encodeCursor(after)
          : null,
  };
}
