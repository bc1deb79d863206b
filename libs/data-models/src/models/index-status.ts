export const INDEX_STATUSES = ['pending', 'ready', 'failed', 'dropping'] as const;
/** `pending` -> `ready` | `failed` while building; `dropping` while an unindexed field's index is removed. */
export type IndexStatus = (typeof INDEX_STATUSES)[number];
