/**
 * The bounds and defaults of a list's query that its input schema states (record-inputs.ts): kept
 * apart from the SQL that applies them, so the schemas read them without server code.
 */
export const DEFAULT_SORT = '-createdAt';
/** The trash's default order: newest deletion first. */
export const DEFAULT_TRASH_SORT = '-deletedAt';
export const MAX_SORT_TERMS = 3;
export const SEARCH_MAX_LENGTH = 200;
/** The longest cursor ever issued (and accepted). Only URL-safe characters: it never grows when URL-encoded. */
export const MAX_CURSOR_LENGTH = 512;
