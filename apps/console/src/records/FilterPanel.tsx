import { useEffect, useMemo, useState } from 'react';
import type { DataField } from '../data-models/types';
import { checkFilter, filterTargets, type GroupDraft } from './filter-builder';
import { draftFromTree } from './filter-draft';
import { FilterBuilder } from './FilterBuilder';
import { ToolbarMenu, useToolbarMenu } from './ToolbarMenu';
import type { ViewStateHandle } from './view-state';

/** The filter builder over the view's filter: checked by the server's rules before it is applied. */
export function FilterPanel({ fields, view }: { fields: DataField[]; view: ViewStateHandle }) {
  const applied = view.state.filter !== undefined;
  return (
    <ToolbarMenu label={`Filter${applied ? ' (applied)' : ''}`} className="filter-menu" active={applied}>
      <FilterForm fields={fields} view={view} />
    </ToolbarMenu>
  );
}

/** The panel's form: applying or clearing closes the panel, as a menu closes once chosen from. */
function FilterForm({ fields, view }: { fields: DataField[]; view: ViewStateHandle }) {
  const menu = useToolbarMenu();
  const targets = useMemo(() => filterTargets(fields), [fields]);
  const filterKey = JSON.stringify(view.state.filter ?? null);
  const [draft, setDraft] = useState<GroupDraft>(() => draftFromTree(view.state.filter, targets));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<string[]>([]);
  // Another filter arrived through the address (back, a link, a saved view): edit that one.
  useEffect(() => {
    setDraft(draftFromTree(JSON.parse(filterKey) ?? undefined, targets));
  }, [filterKey, targets]);

  const apply = () => {
    const checked = checkFilter(draft, targets, fields);
    setErrors(checked.errors);
    setProblems(checked.general.map((problem) => problem.message));
    if (Object.keys(checked.errors).length > 0 || checked.general.length > 0) return;
    view.update({ filter: checked.tree });
    menu.close();
  };
  const clear = () => {
    setErrors({});
    setProblems([]);
    view.update({ filter: undefined });
    menu.close();
  };

  return (
    <form
        className="filter-popover"
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
        noValidate
      >
        <FilterBuilder root={draft} onChange={setDraft} targets={targets} errors={errors} />
        {problems.length > 0 ? (
          <div role="alert" className="notice notice-error">
            {problems.map((problem) => (
              <p key={problem}>{problem}</p>
            ))}
          </div>
        ) : null}
        <div className="button-row">
          <button type="submit" className="button button-primary">
            Apply filter
          </button>
          <button type="button" className="button" onClick={clear}>
            Clear filter
          </button>
        </div>
    </form>
  );
}
