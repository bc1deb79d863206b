import { fieldErrorsOf } from '../api/rpc-error';
import type { ActionFormValues } from './action-form';

/**
 * The server's refusal keyed by the editor's inputs: a value's path down to its field
 * (`actions[0].data.tags[1]` -> `actions[0].data.tags`), a filter's to the filter, the rest as named.
 */
export function formErrorsOf(failure: unknown): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrorsOf(failure))) {
    const value = /^(actions\[\d+\]\.data\.[^.[]+)/.exec(field);
    const filter = /^(actions\[\d+\]\.filter)/.exec(field);
    const key = value?.[1] ?? filter?.[1] ?? field;
    errors[key] = errors[key] ? `${errors[key]}; ${message}` : message;
  }
  return errors;
}

/** `errors` without those `drop` names: an input's error goes once it is changed, the others stay. */
export function withoutErrorsOf(errors: Record<string, string>, drop: (path: string) => boolean): Record<string, string> {
  const kept = Object.fromEntries(Object.entries(errors).filter(([path]) => !drop(path)));
  return Object.keys(kept).length === Object.keys(errors).length ? errors : kept;
}

/** Whether the error at `path` is about a part of the action at `at` that changed from `before` to `after`. */
export function changedAt(path: string, at: string, before: ActionFormValues, after: ActionFormValues): boolean {
  if (path === at) return JSON.stringify(before) !== JSON.stringify(after);
  if (!path.startsWith(`${at}.`)) return false;
  const rest = path.slice(at.length + 1);
  const value = /^data\.([^.[]+)/.exec(rest);
  if (value) {
    const row = (action: ActionFormValues) => JSON.stringify(action.values.find((candidate) => candidate.field === value[1]) ?? null);
    return before.model !== after.model || row(before) !== row(after);
  }
  const property = rest.split(/[.[]/)[0] ?? rest;
  // The server names the action's properties; the editor holds them in inputs of its own.
  const sources: Array<keyof ActionFormValues> =
    property === 'data' ? ['values'] : property === 'filter' ? ['target', 'match', 'filterJson'] : [property as keyof ActionFormValues];
  return before.type !== after.type || sources.some((source) => JSON.stringify(before[source]) !== JSON.stringify(after[source]));
}
