import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import type { DataField, DataRecord } from '../data-models/types';
import { draftOf, isInlineEditable } from './cell-editing';
import type { CellMove } from './CellEditor';
import type { GridColumn, GridLayout } from './grid-columns';
import { GridRow, ROW_HEIGHT, type CellCommit, type EditingCell, type Position, type RowActions } from './GridRow';
import type { RecordSelection } from './use-selection';


const SELECT_WIDTH = 36;
const ACTIONS_WIDTH = 116;
/** Rows left below the last one shown when the next page is asked for. */
const LOAD_AHEAD = 40;
const RESIZE_STEP = 16;

export interface RecordsGridProps {
  modelName: string;
  layout: GridLayout;
  records: DataRecord[];
  hasMore: boolean;
  busy: boolean;
  loadMore(): void;
  sort: string;
  onSort(key: string): void;
  onResize(key: string, width: number): void;
  onReorder(key: string, beforeKey: string): void;
  selection: RecordSelection;
  canEdit: boolean;
  canDelete: boolean;
  onOpen(record: DataRecord): void;
  onDelete(record: DataRecord): void;
  /** An editor opened on the record (its version can be read meanwhile). */
  onEditStart(record: DataRecord): void;
  /** Saves a cell; resolves to the refusal's words to keep the editor open with them, or undefined once saved. */
  onCommit(commit: CellCommit): Promise<string | undefined>;
  /** Where a failed save's words stay, by `recordId:fieldKey`, until the cell is edited again. */
  cellErrors: Readonly<Record<string, string>>;
}


/** A grid this narrow (a phone) keeps its frozen title column narrow, so other columns still show beside it. */
const NARROW_GRID = 600;
const NARROW_TITLE_SHARE = 0.35;

/** Fills the rest of the window below the grid's top, so the page itself does not scroll; and the grid's width. */
function useGridBox(element: HTMLElement | null): { height?: number; width?: number } {
  const [box, setBox] = useState<{ height?: number; width?: number }>({});
  useLayoutEffect(() => {
    if (!element) return;
    const measure = () =>
      setBox((current) => {
        const height = Math.max(320, Math.floor(window.innerHeight - element.getBoundingClientRect().top - 24));
        const width = element.clientWidth;
        return current.height === height && current.width === width ? current : { height, width };
      });
    measure();
    window.addEventListener('resize', measure);
    // The toolbar above can wrap onto more lines (a bulk bar appears): measure again when it does.
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(measure);
    if (element.parentElement) observer?.observe(element.parentElement);
    return () => {
      window.removeEventListener('resize', measure);
      observer?.disconnect();
    };
  }, [element]);
  return box;
}

/**
 * The records as a spreadsheet: a frozen title column, typed cells, row actions kept in view;
 * only the rows in sight are rendered, and the next page loads as the end comes near. Arrow keys,
 * Tab and Enter move; Enter, F2, typing or a double click edits; Escape cancels; Delete empties.
 */
export function RecordsGrid(props: RecordsGridProps) {
  const { layout, records, hasMore, busy, loadMore, selection, canEdit, cellErrors } = props;
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  const { height, width: gridWidth } = useGridBox(scroller);
  const columns = useMemo(() => [layout.title, ...layout.columns], [layout]);
  const [active, setActive] = useState<Position>({ row: 0, col: 0 });
  const [editing, setEditing] = useState<EditingCell | null>(null);
  const [liveWidths, setLiveWidths] = useState<Record<string, number>>({});
  const owningFocus = useRef(false);
  const dragged = useRef<string | null>(null);
  const resizing = useRef(false);

  const virtualizer = useVirtualizer({
    count: records.length,
    getScrollElement: () => scroller,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // Before the first measure (and where nothing is laid out): a window's worth of rows.
    initialRect: { width: 1280, height: 800 },
  });
  const virtualRows = virtualizer.getVirtualItems();
  const lastShown = virtualRows[virtualRows.length - 1]?.index ?? 0;
  useEffect(() => {
    if (hasMore && !busy && lastShown >= records.length - LOAD_AHEAD) loadMore();
  }, [hasMore, busy, lastShown, records.length, loadMore]);

  const widthOf = (column: GridColumn) => {
    const width = liveWidths[column.key] ?? column.width;
    return column === layout.title && gridWidth && gridWidth < NARROW_GRID ? Math.min(width, Math.round(gridWidth * NARROW_TITLE_SHARE)) : width;
  };
  const totalWidth = SELECT_WIDTH + columns.reduce((sum, column) => sum + widthOf(column), 0) + ACTIONS_WIDTH;
  const showActions = props.canEdit || props.canDelete;

  // Keep the active cell on the grid as rows come and go.
  useEffect(() => {
    setActive((current) => ({ row: Math.min(current.row, Math.max(0, records.length - 1)), col: Math.min(current.col, columns.length - 1) }));
  }, [records.length, columns.length]);

  const focusActive = useCallback(() => {
    if (!scroller || !owningFocus.current) return;
    const cell = scroller.querySelector<HTMLElement>(`[data-cell="${active.row}:${active.col}"]`);
    if (cell && document.activeElement !== cell && !cell.contains(document.activeElement)) cell.focus();
  }, [scroller, active]);
  useEffect(() => {
    if (editing) return;
    focusActive();
  }, [focusActive, editing, virtualRows.length, lastShown]);

  const moveTo = (row: number, col: number) => {
    const next = { row: Math.min(Math.max(0, row), records.length - 1), col: Math.min(Math.max(0, col), columns.length - 1) };
    setActive(next);
    virtualizer.scrollToIndex(next.row, { align: 'auto' });
  };
  const step = (move: CellMove, from: Position) => {
    if (move === 'down') moveTo(from.row + 1, from.col);
    else if (move === 'right') {
      if (from.col < columns.length - 1) moveTo(from.row, from.col + 1);
      else moveTo(from.row + 1, 0);
    } else if (move === 'left') {
      if (from.col > 0) moveTo(from.row, from.col - 1);
      else moveTo(from.row - 1, columns.length - 1);
    }
  };

  const startEditing = (position: Position, typed?: string) => {
    const record = records[position.row];
    const column = columns[position.col];
    if (!canEdit || !record || !column?.field || !isInlineEditable(column.field)) {
      if (record && column?.field && !isInlineEditable(column.field) && canEdit && column.field.type !== 'FORMULA') props.onOpen(record);
      return;
    }
    if (column.field.type === 'BOOLEAN') {
      void commit({ record, field: column.field, draft: record.data[column.key] === true ? 'false' : 'true', shown: undefined }, position, 'stay');
      return;
    }
    const initial = typed !== undefined && isTypeable(column.field) ? typed : draftOf(column.field, record.data[column.key]);
    props.onEditStart(record);
    setEditing({ position, initial, busy: false, error: cellErrors[`${record.id}:${column.key}`] });
  };

  /** Delete or Backspace empties a cell, as in a spreadsheet (a required field's rules refuse it, in its editor). */
  const clearCell = (position: Position) => {
    const record = records[position.row];
    const field = columns[position.col]?.field;
    if (!canEdit || !record || !field || !isInlineEditable(field) || field.type === 'BOOLEAN') return;
    void commit({ record, field, draft: draftOf(field, null), shown: null }, position, 'stay');
  };

  const commit = async (change: CellCommit, position: Position, move: CellMove) => {
    setEditing((current) => (current ? { ...current, busy: true, initial: change.draft } : current));
    const refusal = await props.onCommit(change);
    if (refusal !== undefined) {
      if (change.field.type === 'BOOLEAN') return;
      setEditing({ position, initial: change.draft, busy: false, error: refusal });
      return;
    }
    owningFocus.current = true;
    setEditing(null);
    step(move, position);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    if (editing || event.target !== event.currentTarget.querySelector(`[data-cell="${active.row}:${active.col}"]`)) return;
    const { row, col } = active;
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(row + 1, col),
      ArrowUp: () => moveTo(row - 1, col),
      ArrowRight: () => moveTo(row, col + 1),
      ArrowLeft: () => moveTo(row, col - 1),
      Home: () => moveTo(event.ctrlKey ? 0 : row, 0),
      End: () => moveTo(event.ctrlKey ? records.length - 1 : row, columns.length - 1),
      PageDown: () => moveTo(row + 20, col),
      PageUp: () => moveTo(row - 20, col),
      Enter: () => startEditing(active),
      F2: () => startEditing(active),
      Delete: () => clearCell(active),
      Backspace: () => clearCell(active),
    };
    if (event.key === 'Tab') {
      const atEdge = event.shiftKey ? row === 0 && col === 0 : row === records.length - 1 && col === columns.length - 1;
      if (atEdge) return;
      event.preventDefault();
      step(event.shiftKey ? 'left' : 'right', active);
      return;
    }
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
      return;
    }
    if (event.key === ' ' && columns[col]?.field?.type === 'BOOLEAN') {
      event.preventDefault();
      startEditing(active);
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      startEditing(active, event.key);
    }
  };

  const onResizeStart = (column: GridColumn, event: ReactPointerEvent<HTMLElement>) => {
    event.preventDefault();
    const startX = event.clientX;
    const startWidth = widthOf(column);
    const handle = event.currentTarget;
    handle.setPointerCapture(event.pointerId);
    resizing.current = true;
    let width = startWidth;
    const move = (moveEvent: PointerEvent) => {
      width = Math.max(48, startWidth + moveEvent.clientX - startX);
      setLiveWidths((current) => ({ ...current, [column.key]: width }));
    };
    const up = () => {
      resizing.current = false;
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      setLiveWidths((current) => {
        const { [column.key]: _, ...rest } = current;
        return rest;
      });
      if (width !== startWidth) props.onResize(column.key, width);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  };

  const header = (column: GridColumn, index: number) => {
    const direction = props.sort === column.key ? 'ascending' : props.sort === `-${column.key}` ? 'descending' : undefined;
    const isTitle = index === 0;
    return (
      <th
        key={column.key}
        scope="col"
        className={`${isTitle ? 'title-cell ' : ''}${column.numeric ? 'numeric' : ''}`}
        aria-sort={direction ?? (column.sortable ? 'none' : undefined)}
        draggable={!isTitle}
        onDragStart={(event) => {
          // A drag that starts on the width handle resizes; it must not move the column too.
          if (resizing.current) {
            event.preventDefault();
            return;
          }
          dragged.current = column.key;
          event.dataTransfer.effectAllowed = 'move';
        }}
        onDragOver={(event) => {
          if (dragged.current && !isTitle && dragged.current !== column.key) event.preventDefault();
        }}
        onDrop={(event) => {
          event.preventDefault();
          if (dragged.current && dragged.current !== column.key) props.onReorder(dragged.current, column.key);
          dragged.current = null;
        }}
      >
        {column.sortable ? (
          <button type="button" className="sort-button" onClick={() => props.onSort(column.key)} title={column.label}>
            {column.label}
            <span aria-hidden="true">{direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''}</span>
            <span className="visually-hidden">{direction ? `, sorted ${direction}` : ', sort'}</span>
          </button>
        ) : (
          <span className="header-label" title={column.label}>
            {column.label}
          </span>
        )}
        <span
          role="separator"
          aria-orientation="vertical"
          aria-label={`Width of ${column.label}`}
          aria-valuenow={widthOf(column)}
          aria-valuemin={48}
          tabIndex={0}
          className="column-resizer"
          onPointerDown={(event) => onResizeStart(column, event)}
          onKeyDown={(event) => {
            if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
            event.preventDefault();
            props.onResize(column.key, column.width + (event.key === 'ArrowRight' ? RESIZE_STEP : -RESIZE_STEP));
          }}
        />
      </th>
    );
  };

  // Rows re-render only when what they show changes: their handlers reach the grid's latest state through a ref.
  const latest = useRef({ startEditing, commit, setActive, setEditing, owningFocus, selection, props });
  latest.current = { startEditing, commit, setActive, setEditing, owningFocus, selection, props };
  const rowActions = useMemo<RowActions>(
    () => ({
      activate: (position) => latest.current.setActive(position),
      edit: (position) => latest.current.startEditing(position),
      commit: (change, position, move) => void latest.current.commit(change, position, move),
      cancel: () => {
        latest.current.owningFocus.current = true;
        latest.current.setEditing(null);
      },
      select: (id, selected) => latest.current.selection.toggle(id, selected),
      open: (record) => latest.current.props.onOpen(record),
      remove: (record) => latest.current.props.onDelete(record),
    }),
    [],
  );

  const loadedAll = selection.allLoadedSelected(records);
  const paddingTop = virtualRows[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (virtualRows[virtualRows.length - 1]?.end ?? 0);

  return (
    <div
      ref={setScroller}
      // On a phone the row actions scroll with the row, leaving the width to the values beside the frozen title.
      className={gridWidth && gridWidth < NARROW_GRID ? 'records-grid narrow' : 'records-grid'}
      style={height ? { height } : undefined}
      role="region"
      aria-label={`${props.modelName} records`}
      onFocus={() => {
        owningFocus.current = true;
      }}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) owningFocus.current = false;
      }}
    >
      <table role="grid" aria-rowcount={hasMore ? -1 : records.length + 1} aria-busy={busy || undefined} style={{ width: totalWidth }} onKeyDown={onKeyDown}>
        <colgroup>
          <col style={{ width: SELECT_WIDTH }} />
          {columns.map((column) => (
            <col key={column.key} style={{ width: widthOf(column) }} />
          ))}
          {showActions ? <col style={{ width: ACTIONS_WIDTH }} /> : null}
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col" className="select-cell">
              <input
                type="checkbox"
                aria-label="Select all loaded records"
                checked={loadedAll && records.length > 0}
                ref={(input) => {
                  if (input) input.indeterminate = !loadedAll && selection.count > 0;
                }}
                onChange={(event) => selection.setLoaded(records, event.target.checked)}
              />
            </th>
            {columns.map(header)}
            {showActions ? (
              <th scope="col" className="actions-cell">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {paddingTop > 0 ? <tr aria-hidden="true" className="spacer" style={{ height: paddingTop }} /> : null}
          {virtualRows.map((virtualRow) => {
            const rowIndex = virtualRow.index;
            const record = records[rowIndex] as DataRecord;
            return (
              <GridRow
                key={record.id}
                record={record}
                rowIndex={rowIndex}
                columns={columns}
                activeCol={active.row === rowIndex ? active.col : -1}
                editing={editing !== null && editing.position.row === rowIndex ? editing : null}
                selected={selection.has(record.id)}
                cellErrors={cellErrors}
                canEdit={canEdit}
                canOpen={props.canEdit}
                canDelete={props.canDelete}
                actions={rowActions}
              />
            );
          })}
          {paddingBottom > 0 ? <tr aria-hidden="true" className="spacer" style={{ height: paddingBottom }} /> : null}
        </tbody>
      </table>
      {busy && records.length > 0 ? (
        <p role="status" className="grid-loading">
          Loading more records…
        </p>
      ) : null}
    </div>
  );
}

/** Types where a typed character starts the value afresh, as in a spreadsheet. */
function isTypeable(field: DataField): boolean {
  return ['TEXT', 'LONG_TEXT', 'NUMBER', 'EMAIL', 'URL'].includes(field.type);
}
