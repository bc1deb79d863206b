/**
 * True for `{}`-like objects: object literals, JSON.parse output and null-prototype objects.
 * Arrays, dates, maps, class instances and boxed primitives are not plain objects.
 * The prototype test deliberately does not compare against this realm's `Object.prototype`,
 * so objects created in another realm (an iframe, a `vm` context) are still recognised.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/** Reads an own property only, so keys such as `constructor` never resolve to inherited members. */
export function ownValue(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Short, safe description of a value's type for error messages (never the value itself). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isFinite(value) ? 'a number' : 'a non-finite number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    case 'undefined':
      return 'undefined';
    default:
      return `a ${typeof value}`;
  }
}
