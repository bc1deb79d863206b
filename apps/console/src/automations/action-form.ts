import type { ActionDefinition, ActionType } from '../api/automation-types';
import type { DataField } from '../data-models/types';
import { checkText } from '../forms/text-rules';
import { checkValues, dataOf, rowsOf, type ValueRow } from './action-values';
import { EMPTY_MATCH, filterOfMatch, matchOfFilter, matchProblem, type RecordMatch } from './record-match';

/** One action as the editor holds it: values as typed inputs or templates, people as chosen ids. */
export interface ActionFormValues {
  type: ActionType;
  model: string;
  values: ValueRow[];
  /** update-record names its record by id, by one field's value, or by a filter tree matching exactly one. */
  target: 'recordId' | 'match' | 'filter';
  recordId: string;
  match: RecordMatch;
  filterJson: string;
  title: string;
  body: string;
  /** notify: the members chosen by name. */
  userIds: string[];
  role: string;
  /** Set when a model is chosen: its required fields become the first rows once they are known. */
  seedFromModel?: boolean;
}

export const MAX_ACTIONS = 10;

/** The live fields of each model the actions write, by model key; absent while loading. */
export type FieldsByModel = ReadonlyMap<string, readonly DataField[]>;

export function emptyAction(type: ActionType = 'create-record'): ActionFormValues {
  return { type, model: '', values: [], target: 'recordId', recordId: '', match: EMPTY_MATCH, filterJson: '', title: '', body: '', userIds: [], role: '' };
}

export function actionFormOf(action: ActionDefinition, fields: readonly DataField[] = []): ActionFormValues {
  const match = action.filter ? matchOfFilter(action.filter) : undefined;
  return {
    ...emptyAction(action.type),
    model: action.model ?? '',
    values: rowsOf(action.data ?? {}, fields),
    target: match ? 'match' : action.filter ? 'filter' : 'recordId',
    recordId: action.recordId ?? '',
    match: match ?? EMPTY_MATCH,
    filterJson: action.filter ? JSON.stringify(action.filter, null, 2) : '',
    title: action.title ?? '',
    body: action.body ?? '',
    userIds: action.userIds ?? [],
    role: action.role ?? '',
  };
}

/** A JSON object from a text area, or why not. */
export function parseJsonObject(text: string): { value: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { error: 'Required' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `Not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'Must be a JSON object: { "field": value, … }' };
  return { value: value as Record<string, unknown> };
}

/**
 * Checks one action as the server will (its values by field-validation, against the model's
 * fields) and builds it; errors are keyed as the server keys them (`actions[0].data.amount`), so
 * its refusals land on the same inputs.
 */
export function checkAction(values: ActionFormValues, index: number, fieldsByModel: FieldsByModel = new Map()): { errors: Record<string, string>; action?: ActionDefinition } {
  const at = `actions[${index}]`;
  const errors: Record<string, string> = {};
  if (values.type === 'notify') {
    const title = checkText(values.title, { required: true, maxLength: 500 });
    if (title) errors[`${at}.title`] = title;
    const body = checkText(values.body, { maxLength: 5000 });
    if (body) errors[`${at}.body`] = body;
    const userIds = [...new Set(values.userIds)];
    if (userIds.length === 0 && values.role === '') errors[at] = 'Choose people to notify, a role, or both';
    if (userIds.length > 100) errors[`${at}.userIds`] = 'At most 100 people';
    if (Object.keys(errors).length > 0) return { errors };
    return {
      errors,
      action: {
        type: 'notify',
        title: values.title.trim(),
        ...(values.body.trim() ? { body: values.body } : {}),
        ...(userIds.length ? { userIds } : {}),
        ...(values.role ? { role: values.role } : {}),
      },
    };
  }
  const fields = fieldsByModel.get(values.model);
  if (values.model === '') errors[`${at}.model`] = 'Choose a model';
  else if (fields) Object.assign(errors, checkValues(values.values, fields, values.type === 'create-record' ? 'create' : 'update', at));
  if (values.type === 'update-record' && values.values.length === 0) errors[`${at}.data`] = 'Add a field to change';
  let target: Pick<ActionDefinition, 'recordId' | 'filter'> = {};
  if (values.type === 'update-record') {
    if (values.target === 'recordId') {
      const recordId = checkText(values.recordId, { required: true, maxLength: 200 });
      if (recordId) errors[`${at}.recordId`] = recordId;
      else target = { recordId: values.recordId.trim() };
    } else if (values.target === 'match') {
      const problem = fields ? matchProblem(values.match, fields) : values.match.field === '' ? 'Choose a field' : undefined;
      if (problem) errors[`${at}.filter`] = problem;
      else target = { filter: filterOfMatch(values.match, fields ?? []) };
    } else {
      const filter = parseJsonObject(values.filterJson);
      if ('error' in filter) errors[`${at}.filter`] = filter.error;
      else target = { filter: filter.value };
    }
  }
  if (Object.keys(errors).length > 0) return { errors };
  return { errors, action: { type: values.type, model: values.model, ...target, data: dataOf(values.values, fields ?? []) } };
}

export function checkActions(actions: readonly ActionFormValues[], fieldsByModel: FieldsByModel = new Map()): { errors: Record<string, string>; actions?: ActionDefinition[] } {
  if (actions.length === 0) return { errors: { actions: 'Add at least one action' } };
  if (actions.length > MAX_ACTIONS) return { errors: { actions: `At most ${MAX_ACTIONS} actions` } };
  const checked = actions.map((action, index) => checkAction(action, index, fieldsByModel));
  const errors = Object.assign({}, ...checked.map((result) => result.errors)) as Record<string, string>;
  if (Object.keys(errors).length > 0) return { errors };
  return { errors, actions: checked.map((result) => result.action as ActionDefinition) };
}
