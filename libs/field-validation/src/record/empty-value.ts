/**
 * Emptiness as the `required` rule sees it: null, undefined, "" and [] are empty. Everything else,
 * including 0, false and whitespace-only text, is a value.
 */
export function isEmptyValue(value: unknown): boolean {
  return value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}
