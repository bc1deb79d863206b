/**
 * Deeper JSON than any request of ours needs. Nesting is refused before parsing: a document of
 * thousands of nested arrays parses fine but overflows the stack of whatever walks it next
 * (cloning, schema validation), which would surface as a 500 instead of a 400.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      depth--;
    }
  }
  return deepest;
}

/** JSON.parse, refusing documents nested deeper than `maxDepth`; errors are messages for the client. */
export function parseJsonWithinDepth(text: string, maxDepth = MAX_JSON_DEPTH): { value: unknown } | { error: string } {
  if (nestingDepth(text, maxDepth) > maxDepth) return { error: `nested deeper than ${maxDepth} levels` };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}
