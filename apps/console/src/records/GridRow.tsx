import { lazy, memo, Suspense } from 'react';
import type { DataField, DataRecord } from '../data-models/types';
import { cellDisplay, cellText, formatMoment } from './cell-format';
import { isInlineEditable } from './cell-editing';
import type { CellMove } from './CellEditor';
import { CellValue } from './CellValue';
import type { GridColumn } from './grid-columns';
import type { FormValue } from './record-form';

// Editors load when a cell is first edited: the grid alone is what the page needs to show.
const CellEditor = lazy(() => import('./CellEditor'));

export const ROW_HEIGHT = 28;

export interface CellCommit {
  record: DataRecord;
  field: DataField;
  draft: FormValue;
  /** What the row shows once saved (relations: the chosen records with their titles). */
  shown: unknown;
}

export interface Position {
  row: number;
  col: number;
}

const locale = typeof navigator === 'undefined' ? undefined : navigator.language;

function columnValue(column: GridColumn, record: DataRecord) {
  if (column.field) return cellDisplay(column.field, record.data[column.key], locale);
  const value = record[column.key as 'createdAt' | 'updatedAt'];
  return { kind: 'text' as const, text: typeof value === 'string' ? formatMoment(value, locale) : '' };
}

export interface EditingCell {
  position: Position;
  initial: FormValue;
  error?: string;
  busy: boolean;
}

export interface RowActions {
  activate(position: Position): void;
  edit(position: Position): void;
  commit(change: CellCommit, position: Position, move: CellMove): void;
  cancel(): void;
  select(id: string, selected: boolean): void;
  open(record: DataRecord): void;
  remove(record: DataRecord): void;
}

interface GridRowProps {
  record: DataRecord;
  rowIndex: number;
  columns: GridColumn[];
  /** The active cell's column in this row; -1 when it is in another row. */
  activeCol: number;
  editing: EditingCell | null;
  selected: boolean;
  cellErrors: Readonly<Record<string, string>>;
  canEdit: boolean;
  canOpen: boolean;
  canDelete: boolean;
  actions: RowActions;
}

/** One record's row: its checkbox, its frozen title, a cell per column, its actions. */
export const GridRow = memo(function GridRow({ record, rowIndex, columns, activeCol, editing, selected, cellErrors, canEdit, canOpen, canDelete, actions }: GridRowProps) {
  return (
    <tr aria-rowindex={rowIndex + 2} aria-selected={selected} className={selected ? 'selected' : undefined} style={{ height: ROW_HEIGHT }}>
      <td className="select-cell">
        <input type="checkbox" aria-label={`Select ${record.title}`} checked={selected} onChange={(event) => actions.select(record.id, event.target.checked)} />
      </td>
      {columns.map((column, colIndex) => {
        const isActive = activeCol === colIndex;
        const isEditing = editing !== null && editing.position.col === colIndex;
        const display = colIndex === 0 ? { kind: 'text' as const, text: record.title } : columnValue(column, record);
        const error = cellErrors[`${record.id}:${column.key}`];
        const Cell = colIndex === 0 ? 'th' : 'td';
        const position = { row: rowIndex, col: colIndex };
        return (
          <Cell
            key={column.key}
            scope={colIndex === 0 ? 'row' : undefined}
            data-cell={`${rowIndex}:${colIndex}`}
            tabIndex={isActive && !isEditing ? 0 : -1}
            aria-invalid={error ? true : undefined}
            aria-readonly={!canEdit || !column.field || !isInlineEditable(column.field) || undefined}
            className={[colIndex === 0 ? 'title-cell' : '', column.numeric || display.kind === 'number' ? 'numeric' : '', isActive ? 'active' : '', isEditing ? 'editing' : '', error ? 'invalid' : '']
              .filter(Boolean)
              .join(' ')}
            title={error ?? (cellText(display) || undefined)}
            onClick={(event) => {
              actions.activate(position);
              if (!isEditing) event.currentTarget.focus();
              // A yes / no box toggles on a click, as a checkbox does.
              if (column.field?.type === 'BOOLEAN' && (event.target as HTMLElement).matches('input[type="checkbox"]')) actions.edit(position);
            }}
            onDoubleClick={() => actions.edit(position)}
          >
            <span className="cell-content">
              <CellValue display={display} />
            </span>
            {isEditing && editing && column.field ? (
              <Suspense fallback={<span className="cell-editor">Loading…</span>}>
                <CellEditor
                  field={column.field}
                  label={`${column.label} of ${record.title}`}
                  initial={editing.initial}
                  shown={record.data[column.key]}
                  error={editing.error}
                  busy={editing.busy}
                  onCommit={(draft, shown, move) => actions.commit({ record, field: column.field as DataField, draft, shown }, editing.position, move)}
                  onCancel={actions.cancel}
                />
              </Suspense>
            ) : null}
          </Cell>
        );
      })}
      {canOpen || canDelete ? (
        <td className="actions-cell">
          {canOpen ? (
            <button type="button" className="button button-small" onClick={() => actions.open(record)} aria-label={`Edit ${record.title}`}>
              Edit
            </button>
          ) : null}
          {canDelete ? (
            <button type="button" className="button button-small button-danger-quiet" onClick={() => actions.remove(record)} aria-label={`Delete ${record.title}`}>
              Delete
            </button>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
});
