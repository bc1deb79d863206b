import { useEffect, useState } from 'react';
import type { AutomationWithSecret } from '../api/automation-types';
import { useRpcQuery } from '../api/use-rpc-query';
import { navigate } from '../app/router';
import { useSignedIn } from '../session/session-context';
import { emptyAction, type ActionFormValues, type FieldsByModel } from './action-form';
import { startingRows } from './action-values';
import { automationFormOf, checkAutomationForm, emptyAutomationForm, type AutomationFormValues } from './automation-form';
import { changedAt, formErrorsOf, withoutErrorsOf } from './editor-errors';
import { templateVariables, watchedModel } from './template-suggestions';
import { useModelFields } from './use-editor-catalog';
import { MAX_ACTIONS } from './action-form';

/** Actions whose model was just chosen start from its required fields, once those are known. */
function seeded(actions: ActionFormValues[], fieldsByModel: FieldsByModel): ActionFormValues[] | undefined {
  let changed = false;
  const next = actions.map((action) => {
    const fields = action.seedFromModel ? fieldsByModel.get(action.model) : undefined;
    if (!fields) return action;
    changed = true;
    return { ...action, values: action.type === 'create-record' ? startingRows(fields) : [], seedFromModel: false };
  });
  return changed ? next : undefined;
}

/**
 * The editor's state: the automation being made or changed, its models' fields, the checks run in
 * the browser before anything is sent, and the save, whose refusal lands on the inputs it names.
 */
export function useAutomationEditor(id: string | undefined, knownTypes: ReadonlySet<string>) {
  const { rpc } = useSignedIn();
  const existing = useRpcQuery('automations.get', { id: id ?? '' }, { enabled: id !== undefined });
  const [values, setValues] = useState<AutomationFormValues>(emptyAutomationForm);
  const [loaded, setLoaded] = useState(id === undefined);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<AutomationWithSecret>();
  const storedModels = (existing.data?.actions ?? []).map((action) => action.model ?? '');
  const watched = watchedModel(values.trigger);
  const fieldsByModel = useModelFields([...values.actions.map((action) => action.model), ...storedModels, watched ?? '']);
  const variables = templateVariables(values.trigger, watched === undefined ? undefined : fieldsByModel.get(watched));
  const suggestions = variables.map((variable) => variable.template);

  // A stored automation opens once its models' fields are known (or cannot be), so values open typed.
  const storedFieldsKnown = storedModels.filter(Boolean).every((model) => fieldsByModel.has(model));
  const [waitedLongEnough, setWaitedLongEnough] = useState(false);
  useEffect(() => {
    if (!existing.data || loaded) return;
    const timer = setTimeout(() => setWaitedLongEnough(true), 1500);
    return () => clearTimeout(timer);
  }, [existing.data, loaded]);
  useEffect(() => {
    if (existing.data && !loaded && (storedFieldsKnown || waitedLongEnough)) {
      setValues(automationFormOf(existing.data, fieldsByModel));
      setLoaded(true);
    }
  }, [existing.data, loaded, storedFieldsKnown, waitedLongEnough, fieldsByModel]);

  useEffect(() => {
    const next = seeded(values.actions, fieldsByModel);
    if (next) setValues((current) => ({ ...current, actions: next }));
  }, [values.actions, fieldsByModel]);

  const set = <K extends keyof AutomationFormValues>(key: K, value: AutomationFormValues[K]) => {
    if (key !== 'actions') setErrors((current) => withoutErrorsOf(current, (path) => path === key || path.startsWith(`${key}.`)));
    setValues((current) => ({ ...current, [key]: value }));
  };
  const actions = {
    change: (index: number, action: ActionFormValues) => {
      const before = values.actions[index];
      if (before) setErrors((current) => withoutErrorsOf(current, (path) => changedAt(path, `actions[${index}]`, before, action)));
      set('actions', values.actions.map((current, at) => (at === index ? action : current)));
    },
    move: (index: number, offset: -1 | 1) => {
      const moved = [...values.actions];
      const [action] = moved.splice(index, 1);
      moved.splice(index + offset, 0, action as ActionFormValues);
      set('actions', moved);
    },
    remove: (index: number) => set('actions', values.actions.filter((_, at) => at !== index)),
    add: () => set('actions', [...values.actions, emptyAction()]),
    canAdd: values.actions.length < MAX_ACTIONS,
  };

  const submit = async () => {
    const checked = checkAutomationForm(values, knownTypes, new Date(), fieldsByModel);
    setErrors(checked.errors);
    setError(undefined);
    if (!checked.input) return;
    setBusy(true);
    try {
      const answer = id
        ? await rpc.call('automations.update', { id, ...checked.input })
        : await rpc.call('automations.create', checked.input);
      if (answer.secret) setSaved(answer);
      else navigate(`/automations/${encodeURIComponent(answer.id)}`);
    } catch (failure) {
      setError(failure);
      setErrors(formErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return { existing, loaded, values, set, actions, fieldsByModel, variables, suggestions, errors, error, busy, saved, submit };
}
