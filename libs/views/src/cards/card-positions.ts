import type { EntityManager } from '@mikro-orm/postgresql';
import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing';
import { sqlTextArray, validationFailed } from '@mrp/platform';

/**
 * Where cards sit within their column, per board: a fractional index per card, so a move writes one
 * row and never renumbers the others. Every placement holds a transaction-long lock of its column
 * (an advisory lock on board and column), so concurrent placements into one column take turns and
 * their keys never repeat; placements into different columns do not wait for each other.
 */

export interface CardPlace {
  recordId: string;
  columnId: string;
  position: string;
}

interface PlaceRow {
  record_id: string;
  column_id: string;
  position: string;
}

const toPlace = (row: PlaceRow): CardPlace => ({ recordId: row.record_id, columnId: row.column_id, position: row.position });

async function lockColumn(em: EntityManager, boardId: string, columnId: string): Promise<void> {
  await em.execute('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`kanban-column:${boardId}:${columnId}`]);
}

async function lastPosition(em: EntityManager, boardId: string, columnId: string, except: string | null): Promise<string | null> {
  const [last] = await em.execute<Array<{ position: string }>>(
    `SELECT position FROM kanban_card_positions
      WHERE board_id = ? AND column_id = ? AND record_id IS DISTINCT FROM ?::uuid
      ORDER BY position DESC LIMIT 1`,
    [boardId, columnId, except],
  );
  return last?.position ?? null;
}

async function writePlace(em: EntityManager, boardId: string, recordId: string, columnId: string, position: string): Promise<CardPlace> {
  await em.execute(
    `INSERT INTO kanban_card_positions (board_id, record_id, column_id, position) VALUES (?, ?, ?, ?)
     ON CONFLICT (board_id, record_id) DO UPDATE SET column_id = EXCLUDED.column_id, position = EXCLUDED.position`,
    [boardId, recordId, columnId, position],
  );
  return { recordId, columnId, position };
}

export async function placeOf(em: EntityManager, boardId: string, recordId: string): Promise<CardPlace | null> {
  const [row] = await em.execute<PlaceRow[]>('SELECT record_id, column_id, position FROM kanban_card_positions WHERE board_id = ? AND record_id = ?', [
    boardId,
    recordId,
  ]);
  return row ? toPlace(row) : null;
}

/** Puts the card last in the column (where a card arriving by any other way than kanban.cards.move goes). */
export async function placeAtEnd(em: EntityManager, boardId: string, recordId: string, columnId: string): Promise<CardPlace> {
  await lockColumn(em, boardId, columnId);
  return writePlace(em, boardId, recordId, columnId, generateKeyBetween(await lastPosition(em, boardId, columnId, recordId), null));
}

/** Puts the card just before another card of the column. */
export async function placeBefore(em: EntityManager, boardId: string, recordId: string, columnId: string, beforeRecordId: string): Promise<CardPlace> {
  const refuse = (message: string) => validationFailed([{ field: 'before', code: 'invalid_option', message }]);
  if (beforeRecordId === recordId) throw refuse('A card cannot be placed before itself');
  await lockColumn(em, boardId, columnId);
  const before = await placeOf(em, boardId, beforeRecordId);
  if (!before || before.columnId !== columnId) throw refuse('No such card in the target column');
  const [previous] = await em.execute<Array<{ position: string }>>(
    `SELECT position FROM kanban_card_positions
      WHERE board_id = ? AND column_id = ? AND record_id <> ? AND position < ?
      ORDER BY position DESC LIMIT 1`,
    [boardId, columnId, recordId, before.position],
  );
  return writePlace(em, boardId, recordId, columnId, generateKeyBetween(previous?.position ?? null, before.position));
}

/** Places cards that have no place yet last in their column, in the order given; cards already placed keep theirs. */
export async function placeNewAtEnd(em: EntityManager, boardId: string, columnId: string, recordIds: readonly string[]): Promise<void> {
  if (recordIds.length === 0) return;
  await lockColumn(em, boardId, columnId);
  const placed = new Set(
    (
      await em.execute<Array<{ record_id: string }>>('SELECT record_id FROM kanban_card_positions WHERE board_id = ? AND record_id = ANY(?::uuid[])', [
        boardId,
        sqlTextArray(recordIds),
      ])
    ).map((row) => row.record_id),
  );
  const fresh = recordIds.filter((id) => !placed.has(id));
  if (fresh.length === 0) return;
  const keys = generateNKeysBetween(await lastPosition(em, boardId, columnId, null), null, fresh.length);
  await em.execute(
    `INSERT INTO kanban_card_positions (board_id, record_id, column_id, position)
     SELECT ?, p.record_id, ?, p.position FROM unnest(?::uuid[], ?::text[]) AS p(record_id, position)`,
    [boardId, columnId, sqlTextArray(fresh), sqlTextArray(keys)],
  );
}

/** Takes the card off these boards; answers the boards it was on, with its column there. */
export async function removeCard(em: EntityManager, boardIds: readonly string[], recordId: string): Promise<Array<{ boardId: string; columnId: string }>> {
  const rows = await em.execute<Array<{ board_id: string; column_id: string }>>(
    'DELETE FROM kanban_card_positions WHERE board_id = ANY(?::uuid[]) AND record_id = ? RETURNING board_id, column_id',
    [sqlTextArray(boardIds), recordId],
  );
  return rows.map((row) => ({ boardId: row.board_id, columnId: row.column_id }));
}

/** The places of a column after `after`, in order ((position, record id): a total order). */
export async function placesInColumn(
  em: EntityManager,
  boardId: string,
  columnId: string,
  after: { position: string; recordId: string } | undefined,
  limit: number,
): Promise<CardPlace[]> {
  const rows = await em.execute<PlaceRow[]>(
    `SELECT record_id, column_id, position FROM kanban_card_positions
      WHERE board_id = ? AND column_id = ?
        ${after ? 'AND (position, record_id) > (?::text COLLATE "C", ?::uuid)' : ''}
      ORDER BY position, record_id LIMIT ?`,
    after ? [boardId, columnId, after.position, after.recordId, limit] : [boardId, columnId, limit],
  );
  return rows.map(toPlace);
}
