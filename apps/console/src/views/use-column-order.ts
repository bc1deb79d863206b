import { useState } from 'react';
import { useSignedIn } from '../session/session-context';
import type { BoardColumn } from './types';

/** Moves a board's column one place left or right on the server, then reads the board again. */
export function useColumnOrder(boardId: string, columns: readonly Pick<BoardColumn, 'id' | 'label'>[], reload: () => Promise<void>, announce: (text: string) => void) {
  const { rpc } = useSignedIn();
  const [error, setError] = useState<unknown>();
  const labelOf = (columnId: string) => columns.find((column) => column.id === columnId)?.label ?? columnId;

  const reorder = async (columnId: string, step: -1 | 1) => {
    const ids = columns.map((column) => column.id);
    const at = ids.indexOf(columnId);
    const to = at + step;
    if (to < 0 || to >= ids.length) return;
    [ids[at], ids[to]] = [ids[to] as string, ids[at] as string];
    setError(undefined);
    try {
      await rpc.call('kanban.columns.reorder', { boardId, ids });
      await reload();
      announce(`Columns in order: ${ids.map(labelOf).join(', ')}.`);
    } catch (failure) {
      setError(failure);
    }
  };

  return { reorder, error };
}
