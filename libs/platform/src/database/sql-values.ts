/**
 * A PostgreSQL array literal for a `?::text[]` (or `?::uuid[]`) placeholder. `em.execute` would
 * otherwise expand a JS array into a comma list, which breaks `= ANY(?)` and empty arrays.
 */
export function sqlTextArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** Raw SQL hands timestamps back as strings; every view speaks ISO 8601 UTC. */
export function toIso(value: string | Date): string;
export function toIso(value: string | Date | null): string | null;
export function toIso(value: string | Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
