import type { DataField } from '../data-models/types';
import { ExportButton } from '../export/ExportButton';
import { ImportButton } from '../import/ImportButton';
import { SavedViewsMenu } from '../saved-views/SavedViewsMenu';
import { TrashLink } from '../trash/TrashLink';
import type { ViewStateHandle } from './view-state';

/** What every tool of the records toolbar is given. */
export interface RecordsToolProps {
  modelKey: string;
  modelName: string;
  /** The model's live fields, in position order. */
  fields: DataField[];
  /** The grid's view (search, filter, sort, columns), read from and written to the address. */
  view: ViewStateHandle;
  /** Loads the grid's records again (after an import or a restore). */
  reload(): void;
}

/**
 * The tools beside the grid's search and bulk actions: saved views, CSV import and export, the
 * trash. Each is one line here, loaded on demand (`lazy`) when it is large.
 */
export function RecordsToolbarTools(props: RecordsToolProps) {
  return (
    <div className="records-toolbar-tools">
      {/* Mount tools here, one per line: <SomeTool {...props} /> */}
      <SavedViewsMenu {...props} />
      <ImportButton {...props} />
      <ExportButton {...props} />
      <TrashLink {...props} />
    </div>
  );
}
