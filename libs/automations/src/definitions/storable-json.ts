import { unstorableText, validationFailed } from '@mrp/platform';

/** The first string or key in `value` PostgreSQL's jsonb cannot keep (U+0000, a lone surrogate), by path. */
function unstorablePath(value: unknown, at: string): string | null {
  if (typeof value === 'string') return unstorableText(value) === undefined ? null : at;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorablePath(item, `${at}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (unstorableText(key) !== undefined) return `${at} (a property name)`;
      const found = unstorablePath(item, `${at}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/** Refuses free-form JSON (a run's input, an action's data) holding text that cannot be stored. */
export function assertStorableJson(value: unknown, field: string): void {
  const path = unstorablePath(value, field);
  if (path) {
    throw validationFailed([{ field: path, code: 'invalid_format', message: 'must not contain U+0000 or a lone surrogate (U+D800 to U+DFFF)' }]);
  }
}
