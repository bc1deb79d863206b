import { Type } from '@sinclair/typebox';
import type { RecordOutput } from '@mrp/data-models/contracts';

/**
 * A record as `records.get` answers it. The views lib hands on what data-models' procedures answer
 * and may not import their schemas, so the document says "an object" while the static type is
 * data-models' own: whoever reads a card or a calendar event gets a typed record.
 */
export const DataRecordSchema = (options: { description?: string } = {}) =>
  Type.Unsafe<RecordOutput>(Type.Record(Type.String(), Type.Unknown(), options));
