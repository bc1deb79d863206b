import type { FieldType } from '@mrp/field-validation';

/**
 * The shapes of the data-models procedures' answers the console reads, restated from their
 * output schemas (the console imports nothing server-side).
 */

/** `dataModels.list` items, `dataModels.get` */
export interface DataModel {
  key: string;
  name: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `dataModels.list { recordCounts: true }` items: the live records the caller may see, up to the cap (null without `records.read`). */
export interface DataModelListItem extends DataModel {
  recordCount: number | null;
  /** More records than `recordCount` says. */
  recordCountCapped: boolean;
}

/** `dataModels.fields.list` items */
export interface DataField {
  key: string;
  name: string;
  type: FieldType;
  config: Record<string, unknown>;
  required: boolean;
  position: number;
  indexed: boolean;
  indexStatus: 'pending' | 'ready' | 'failed' | 'dropping' | null;
  indexError: string | null;
  archivedAt: string | null;
}

/** `records.get`, `records.list` items */
export interface DataRecord {
  id: string;
  model: string;
  title: string;
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  updatedBy: string;
}

/** `records.list`: a keyset page; `nextCursor` is null on the last page. */
export interface RecordPage {
  items: DataRecord[];
  nextCursor: string | null;
}
