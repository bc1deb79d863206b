import './saved-views.css';
import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import type { RecordsToolProps } from '../records/RecordsToolbarTools';
import { defaultViewState } from '../records/view-state';
import { useSignedIn } from '../session/session-context';
import { activeView, asGridView, groupViews, isDefaultState, mayChangeView, normalizedState, sameState, type GridView } from './saved-views';
import { SaveViewDialog } from './SaveViewDialog';

/** The view picked last for a model, kept for the tab: a reload while changing it still knows which it was. */
function usePickedView(modelKey: string): [string | undefined, (id: string | undefined) => void] {
  const storageKey = `console.grid-view.${modelKey}`;
  const [pickedId, setPicked] = useState<string | undefined>(() => sessionStorage.getItem(storageKey) ?? undefined);
  const pick = useCallback(
    (id: string | undefined) => {
      if (id) sessionStorage.setItem(storageKey, id);
      else sessionStorage.removeItem(storageKey);
      setPicked(id);
    },
    [storageKey],
  );
  return [pickedId, pick];
}

/**
 * The grid's saved views: picking one puts its state in the address; the grid as it is can be
 * saved as a new view (personal or shared), over the picked one, or the picked one deleted.
 */
export function SavedViewsMenu({ modelKey, view }: Pick<RecordsToolProps, 'modelKey' | 'view'>) {
  const { rpc, permissions } = useSignedIn();
  const selectId = useId();
  const views = useRpcQuery('views.grids.list', { modelKey });
  const items = useMemo(() => (views.data?.items ?? []).map(asGridView), [views.data]);
  const [pickedId, setPickedId] = usePickedView(modelKey);
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState<GridView>();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  // Back on the grid with a plain address, the view picked last in this tab is shown again, as a
  // spreadsheet reopens on the view it was left on; "All records" picks none.
  const picked = pickedId === undefined ? undefined : items.find((item) => item.id === pickedId);
  useEffect(() => {
    if (picked && isDefaultState(view.state) && !isDefaultState(normalizedState(picked.state))) view.replaceState(normalizedState(picked.state));
    // Only when the picked view first shows up; later changes of the grid are the person's own.
  }, [picked?.id]);

  const active = activeView(items, view.state, pickedId);
  const edited = active !== undefined && !sameState(normalizedState(active.state), view.state);
  const mayChange = active !== undefined && mayChangeView(active, permissions);
  const { personal, shared } = groupViews(items);

  const pick = (id: string) => {
    setFailure(undefined);
    const chosen = items.find((item) => item.id === id);
    setPickedId(chosen?.id);
    view.replaceState(chosen ? normalizedState(chosen.state) : defaultViewState());
  };

  const saveChanges = async () => {
    if (!active) return;
    setBusy(true);
    setFailure(undefined);
    try {
      await rpc.call('views.grids.update', { id: active.id, state: view.state });
      await views.reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  const option = (item: GridView) => (
    <option key={item.id} value={item.id}>
      {item.name}
      {item.id === active?.id && edited ? ' (edited)' : ''}
    </option>
  );

  return (
    <div className="saved-views" role="group" aria-label="Saved views">
      <label htmlFor={selectId} className="saved-views-label">
        View
      </label>
      <select id={selectId} className="saved-views-select" value={active?.id ?? ''} onChange={(event) => pick(event.target.value)} disabled={!views.data}>
        <option value="">All records</option>
        {personal.length > 0 ? <optgroup label="My views">{personal.map(option)}</optgroup> : null}
        {shared.length > 0 ? <optgroup label="Shared with the organization">{shared.map(option)}</optgroup> : null}
      </select>
      {active && edited && mayChange ? (
        <button type="button" className="button button-small" disabled={busy} onClick={() => void saveChanges()}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      ) : null}
      <button type="button" className="button button-small" onClick={() => setSaving(true)} title="Save the grid as it is as a new view">
        Save view…
      </button>
      {active && mayChange ? (
        <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(active)} aria-label={`Delete view ${active.name}`}>
          Delete view
        </button>
      ) : null}
      <ErrorNotice error={failure ?? views.error} className="saved-views-error" />

      <SaveViewDialog
        open={saving}
        modelKey={modelKey}
        state={view.state}
        onClose={(saved) => {
          setSaving(false);
          if (!saved) return;
          setPickedId(saved.id);
          void views.reload();
        }}
      />
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete view ${deleting?.name ?? ''}?`}
        confirmLabel="Delete view"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          await rpc.call('views.grids.delete', { id: deleting.id });
          setPickedId(undefined);
          await views.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>{deleting?.shared ? 'Nobody in the organization will see this view any more.' : 'The view goes; the records stay.'}</p>
      </ConfirmDialog>
    </div>
  );
}
