import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, sqlTextArray, toIso } from '@mrp/platform';
import { RouteCache } from '@mrp/events';
import type { BoardView } from './board-schemas';

export interface BoardRow {
  id: string;
  organization_id: string;
  name: string;
  model_key: string;
  field_key: string;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
}

export const BOARD_COLUMNS = 'id, organization_id, name, model_key, field_key, created_by, created_at, updated_at';

export const boardView = (row: BoardRow): BoardView => ({
  id: row.id,
  name: row.name,
  modelKey: row.model_key,
  fieldKey: row.field_key,
  createdBy: row.created_by,
  createdAt: toIso(row.created_at),
  updatedAt: toIso(row.updated_at),
});

export async function requireBoard(em: EntityManager, organizationId: string, id: string): Promise<BoardRow> {
  const [board] = await em.execute<BoardRow[]>(`SELECT ${BOARD_COLUMNS} FROM kanban_boards WHERE id = ? AND organization_id = ?`, [id, organizationId]);
  if (!board) throw notFound('Board');
  return board;
}

/** What the card event deriver needs of a board. */
export type BoardRoute = Pick<BoardRow, 'id' | 'organization_id' | 'model_key' | 'field_key'>;

/**
 * The boards of each organization, kept per process while it hears their changes (a trigger on
 * kanban_boards announces them on event_routes_changed), so a record write of an organization
 * without boards costs no query.
 */
export function createBoardRoutes(): RouteCache<BoardRoute> {
  return new RouteCache<BoardRoute>({
    load: (em, organizationIds) =>
      em.execute<BoardRoute[]>('SELECT id, organization_id, model_key, field_key FROM kanban_boards WHERE organization_id = ANY(?::uuid[])', [
        sqlTextArray(organizationIds),
      ]),
    organizationOf: (board) => board.organization_id,
    idOf: (board) => board.id,
  });
}
