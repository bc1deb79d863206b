import type { FieldShape } from '../models/model-store';
import { joinSql, trustedSql, type SqlFragment } from '../query/sql';
import { csvRecord } from './export-csv';
import { recordOutput } from './record-rows';
import { expandedTitlesColumn, expandWithTitles } from './relation-expansion';
import type { RecordOutput } from './schemas';

/** What an export writes of each record, and how. */
export interface ExportLayout {
  modelKey: string;
  /** The model's fields, in order (archived ones included: recordOutput leaves them out). */
  fields: readonly FieldShape[];
  /** The `fields` keys asked for; undefined: every field. */
  selected: ReadonlySet<string> | undefined;
  /** The relation fields expanded, in the order of the list query's title columns. */
  expanded: readonly FieldShape[] | undefined;
  /** A record's line, as the API writes the record. */
  line: (record: RecordOutput) => string;
}

/** csvRecord: the id, the `columns`' cells, createdAt, updatedAt, CRLF. */
export const csvLines =
  (columns: readonly string[]) =>
  (record: RecordOutput): string =>
    csvRecord(record, columns);

/** The list's item as JSON, and a line feed. */
export const ndjsonLine = (record: RecordOutput): string => `${JSON.stringify(record)}\n`;

/** Where each value sits in a row of `exportColumns`. */
const ID = 0;
const TITLE = 1;
const DATA = 2;
const CREATED_AT = 3;
const UPDATED_AT = 4;
const CREATED_BY = 5;
const UPDATED_BY = 6;
const FIRST_TITLES = 7;

/**
 * What a page's statement reads of each row of the list query (aliased `listed`): the record's
 * columns the answer shows, its data as jsonb's text, and each expanded relation's titles. Only
 * these: the planner drops the list query's other outputs (its sort values) from the page.
 */
export function exportColumns(layout: Pick<ExportLayout, 'expanded'>): SqlFragment {
  const titles = (layout.expanded ?? []).map((_, index) => trustedSql(`listed.${expandedTitlesColumn(index)}::text`));
  return joinSql(
    [trustedSql('listed.id, listed.title, listed.data::text, listed.created_at, listed.updated_at, listed.created_by, listed.updated_by'), ...titles],
    ', ',
  );
}

/** The id of the record a row of `exportColumns` holds. */
export const exportedRecordId = (values: ReadonlyArray<string | null>): string => values[ID] as string;

/**
 * The record a row of `exportColumns` holds, as records.list answers it: its live (or selected)
 * fields, its relations expanded with the titles the row carries. The data is parsed here as the
 * list's rows are (JSON.parse of jsonb's text), so each line is what the API writes for the item.
 */
export function exportedRecord(values: ReadonlyArray<string | null>, layout: ExportLayout): RecordOutput {
  const record = recordOutput(
    {
      id: values[ID] as string,
      title: values[TITLE] as string,
      data: JSON.parse(values[DATA] as string) as Record<string, unknown>,
      created_at: values[CREATED_AT] as string,
      updated_at: values[UPDATED_AT] as string,
      created_by: values[CREATED_BY] as string,
      updated_by: values[UPDATED_BY] as string,
    },
    layout.modelKey,
    layout.fields,
    layout.selected,
  );
  layout.expanded?.forEach((field, index) => {
    const titles = values[FIRST_TITLES + index];
    expandWithTitles(record, field, titles === null ? {} : (JSON.parse(titles) as Record<string, string>));
  });
  return record;
}
