import { Type, type Static } from '@sinclair/typebox';
import { authorship, wholeList } from '../view-schema-parts';

/** Column keys: field keys, or the system columns (createdAt, updatedAt). */
const ColumnKey = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,62}$' });
const MAX_COLUMNS = 200;
export const MIN_COLUMN_WIDTH = 48;
export const MAX_COLUMN_WIDTH = 1200;
/** The JSON text of a whole state; the filter is the only part without a tight bound of its own. */
export const MAX_STATE_LENGTH = 16_000;

/**
 * A records grid's state, as the console keeps it in the address: what `records.list` is asked
 * (q, filter, sort, limit) and how the columns are shown.
 */
export const GridViewStateSchema = Type.Object(
  {
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Quick search (records.list q)' })),
    filter: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'A records.list filter tree' })),
    sort: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^-?[A-Za-z][A-Za-z0-9_]{0,62}(,-?[A-Za-z][A-Za-z0-9_]{0,62})*$',
      description: 'records.list sort: comma-separated keys, - for descending',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 100, description: 'Records per page' }),
    hidden: Type.Array(ColumnKey, { maxItems: MAX_COLUMNS, uniqueItems: true, description: 'Keys of hidden columns' }),
    order: Type.Array(ColumnKey, { maxItems: MAX_COLUMNS, uniqueItems: true, description: 'Column keys in display order' }),
    widths: Type.Record(ColumnKey, Type.Integer({ minimum: MIN_COLUMN_WIDTH, maximum: MAX_COLUMN_WIDTH }), {
      maxProperties: MAX_COLUMNS,
      description: 'Column widths in CSS pixels, by key',
    }),
  },
  { additionalProperties: false, title: 'GridViewState' },
);
export type GridViewState = Static<typeof GridViewStateSchema>;

export const GridViewSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    modelKey: Type.String(),
    name: Type.String(),
    state: GridViewStateSchema,
    shared: Type.Boolean({ description: 'true: every member sees it; false: only its owner (createdBy)' }),
    ...authorship,
  },
  { title: 'GridView' },
);
export type GridView = Static<typeof GridViewSchema>;

/** `views.grids.list` */
export const GridViewListSchema = wholeList(GridViewSchema);
export type GridViewList = Static<typeof GridViewListSchema>;
