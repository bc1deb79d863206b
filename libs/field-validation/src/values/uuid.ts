/** Any RFC 4122/9562 UUID in canonical 8-4-4-4-12 form; the version is not restricted. */
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns the lowercase UUID, or undefined when `text` is not a UUID. */
export function normaliseUuid(text: string): string | undefined {
  return UUID_PATTERN.test(text) ? text.toLowerCase() : undefined;
}
