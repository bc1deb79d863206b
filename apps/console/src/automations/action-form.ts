import type { ActionDefinition, ActionType } from '../api/automation-types';
import { checkText } from '../forms/text-rules';

/** One action as the editor holds it: JSON objects as text, people as a list of ids in text. */
export interface ActionFormValues {
  type: ActionType;
  model: string;
  dataJson: string;
  /** update-record names its record by id or by a filter matching exactly one. */
  target: 'recordId' | 'filter';
  recordId: string;
  filterJson: string;
  title: string;
  body: string;
  /** notify: member ids separated by commas, spaces or lines. */
  userIds: string;
  role: string;
}

export const MAX_ACTIONS = 10;
const MODEL_KEY = /^[a-z][a-z0-9_]{0,62}$/;

export function emptyAction(type: ActionType = 'create-record'): ActionFormValues {
  return {
    type,
    model: '',
    dataJson: type === 'notify' ? '' : '{\n  "title": "Created {{now}}"\n}',
    target: 'recordId',
    recordId: '',
    filterJson: '',
    title: '',
    body: '',
    userIds: '',
    role: '',
  };
}

export function actionFormOf(action: ActionDefinition): ActionFormValues {
  return {
    ...emptyAction(action.type),
    model: action.model ?? '',
    dataJson: action.data ? JSON.stringify(action.data, null, 2) : '',
    target: action.filter ? 'filter' : 'recordId',
    recordId: action.recordId ?? '',
    filterJson: action.filter ? JSON.stringify(action.filter, null, 2) : '',
    title: action.title ?? '',
    body: action.body ?? '',
    userIds: (action.userIds ?? []).join(', '),
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
 * Checks one action as the server will and builds it; errors are keyed as the server keys them
 * (`actions[0].data`), so its refusals land on the same fields.
 */
export function checkAction(values: ActionFormValues, index: number): { errors: Record<string, string>; action?: ActionDefinition } {
  const at = `actions[${index}]`;
  const errors: Record<string, string> = {};
  if (values.type === 'notify') {
    const title = checkText(values.title, { required: true, maxLength: 500 });
    if (title) errors[`${at}.title`] = title;
    const body = checkText(values.body, { maxLength: 5000 });
    if (body) errors[`${at}.body`] = body;
    const userIds = [...new Set(values.userIds.split(/[\s,]+/).filter(Boolean))];
    if (userIds.length === 0 && values.role === '') errors[at] = 'Notify members by id, everyone holding a role, or both';
    if (userIds.length > 100) errors[`${at}.userIds`] = 'At most 100 members';
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
  if (!MODEL_KEY.test(values.model)) errors[`${at}.model`] = values.model === '' ? 'Choose a model' : 'Not a model key';
  const data = parseJsonObject(values.dataJson);
  if ('error' in data) errors[`${at}.data`] = data.error;
  let target: Pick<ActionDefinition, 'recordId' | 'filter'> = {};
  if (values.type === 'update-record') {
    if (values.target === 'recordId') {
      const recordId = checkText(values.recordId, { required: true, maxLength: 200 });
      if (recordId) errors[`${at}.recordId`] = recordId;
      else target = { recordId: values.recordId.trim() };
    } else {
      const filter = parseJsonObject(values.filterJson);
      if ('error' in filter) errors[`${at}.filter`] = filter.error;
      else target = { filter: filter.value };
    }
  }
  if (Object.keys(errors).length > 0 || 'error' in data) return { errors };
  return { errors, action: { type: values.type, model: values.model, ...target, data: data.value } };
}

export function checkActions(actions: readonly ActionFormValues[]): { errors: Record<string, string>; actions?: ActionDefinition[] } {
  if (actions.length === 0) return { errors: { actions: 'Add at least one action' } };
  if (actions.length > MAX_ACTIONS) return { errors: { actions: `At most ${MAX_ACTIONS} actions` } };
  const checked = actions.map((action, index) => checkAction(action, index));
  const errors = Object.assign({}, ...checked.map((result) => result.errors)) as Record<string, string>;
  if (Object.keys(errors).length > 0) return { errors };
  return { errors, actions: checked.map((result) => result.action as ActionDefinition) };
}
