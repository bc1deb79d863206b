/**
 * A PostgreSQL array literal for a `?::text[]` (or `?::uuid[]`) placeholder. `em.execute` would
 * otherwise expand a JS array into a comma list, which breaks `= ANY(?)` and empty arrays.
 */
export function sqlTextArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
