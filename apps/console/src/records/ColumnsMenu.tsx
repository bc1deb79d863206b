import { useId } from 'react';
import { moveColumn, toggleColumn, type GridLayout } from './grid-columns';
import { ToolbarMenu } from './ToolbarMenu';
import type { ViewStateHandle } from './view-state';

/** Shows, hides and orders the grid's columns (the title stays first); the view keeps it in the address. */
export function ColumnsMenu({ layout, view }: { layout: GridLayout; view: ViewStateHandle }) {
  const id = useId();
  const keys = layout.all.map((column) => column.key);
  const hiddenCount = layout.all.filter((column) => column.hidden).length;
  return (
    <ToolbarMenu label={`Columns${hiddenCount > 0 ? ` (${hiddenCount} hidden)` : ''}`} className="columns-menu" active={hiddenCount > 0}>
      <div role="group" aria-label="Columns">
        <ul>
          {layout.all.map((column, index) => (
            <li key={column.key}>
              <input
                type="checkbox"
                id={`${id}-${column.key}`}
                checked={!column.hidden}
                onChange={(event) => view.update({ hidden: toggleColumn(view.state, column.key, event.target.checked) })}
              />
              <label htmlFor={`${id}-${column.key}`}>{column.label}</label>
              <button
                type="button"
                className="icon-button"
                aria-label={`Move ${column.label} left`}
                disabled={index === 0}
                onClick={() => view.update({ order: moveColumn(keys, column.key, -1) }, { replace: true })}
              >
                ↑
              </button>
              <button
                type="button"
                className="icon-button"
                aria-label={`Move ${column.label} right`}
                disabled={index === keys.length - 1}
                onClick={() => view.update({ order: moveColumn(keys, column.key, 1) }, { replace: true })}
              >
                ↓
              </button>
            </li>
          ))}
        </ul>
        {view.state.hidden.length > 0 || view.state.order.length > 0 || Object.keys(view.state.widths).length > 0 ? (
          <button type="button" className="button button-small" onClick={() => view.update({ hidden: [], order: [], widths: {} })}>
            Reset columns
          </button>
        ) : null}
      </div>
    </ToolbarMenu>
  );
}
