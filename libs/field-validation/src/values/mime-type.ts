/** `type/subtype` per RFC 6838 restricted-name rules, without parameters. */
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
/** An allow-list entry may also be a wildcard such as `image/*`. */
const MIME_TYPE_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

/** Lowercased MIME type, or undefined when `text` is not one. */
export function normaliseMimeType(text: string): string | undefined {
  const lowered = text.toLowerCase();
  return MIME_TYPE.test(lowered) ? lowered : undefined;
}

export function normaliseMimeTypePattern(text: string): string | undefined {
  const lowered = text.toLowerCase();
  return MIME_TYPE_PATTERN.test(lowered) ? lowered : undefined;
}

/** Whether a normalised MIME type matches one of the normalised allow-list entries. */
export function mimeTypeAllowed(mimeType: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) =>
    pattern.endsWith('/*') ? mimeType.startsWith(pattern.slice(0, -1)) : mimeType === pattern,
  );
}
