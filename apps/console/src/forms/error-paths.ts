import type { ErrorDetail } from '../api/rpc-error';

/**
 * The input a refusal belongs to: its path's first segment, e.g. `files[0].url` -> `files`,
 * `config.options[2].value` -> `config`. `prefix` is dropped first (`data.` for a record's
 * values as the input schema reports them).
 */
export function rootOfPath(path: string, prefix = ''): string {
  const rest = prefix && path.startsWith(prefix) ? path.slice(prefix.length) : path;
  const end = rest.search(/[.[]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/**
 * Refusals placed on the inputs whose keys are given (the first message of each wins), in the
 * order of `keys`; the rest stay to be shown above the form.
 */
export function placeErrors(
  errors: readonly ErrorDetail[],
  keys: readonly string[],
  rootOf: (path: string) => string,
): { byKey: Record<string, string>; unplaced: ErrorDetail[] } {
  const known = new Set(keys);
  const byKey: Record<string, string> = {};
  const unplaced: ErrorDetail[] = [];
  for (const error of errors) {
    const key = rootOf(error.field);
    if (known.has(key)) byKey[key] ??= error.message;
    else unplaced.push(error);
  }
  return { byKey, unplaced };
}

/** The first of `keys` (in form order) that has an error. */
export function firstInvalid(keys: readonly string[], byKey: Readonly<Record<string, string>>): string | undefined {
  return keys.find((key) => byKey[key] !== undefined);
}

/**
 * The error shown at an input of a nested form: the one at `path` exactly, or the first one
 * below it (`config.reminders[2]` shows at `config.reminders`).
 */
export function errorAt(errors: Readonly<Record<string, string>>, path: string): string | undefined {
  if (errors[path] !== undefined) return errors[path];
  const below = Object.keys(errors).find((key) => key.startsWith(`${path}[`) || key.startsWith(`${path}.`));
  return below === undefined ? undefined : errors[below];
}
