import type { FieldOutput, ModelListItemOutput, ModelOutput, RecordListOutput, RecordOutput } from '@mrp/data-models/contracts';

/** The answers of the data-models procedures the console reads: their own output types. */

/** `dataModels.list` items, `dataModels.get` */
export type DataModel = ModelOutput;

/** `dataModels.list { recordCounts: true }` items: the live records the caller may see, up to the cap (null without `records.read`). */
export type DataModelListItem = ModelListItemOutput;

/** `dataModels.fields.list` items */
export type DataField = FieldOutput;

/** `records.get`, `records.list` items */
export type DataRecord = RecordOutput;

/** `records.list`: a keyset page; `nextCursor` is null on the last page. */
export type RecordPage = RecordListOutput;
