import type { FieldShape } from '../models/model-store';
import { joinSql, trustedSql, type SqlFragment } from '../query/sql';
import { csvRecord } from './export-csv';
import { shownDataKeys } from './record-rows';
import { expandedTitlesColumn, expandWithTitles } from './relation-expansion';
import type { RecordOutput } from './schemas';

/**
 * A record as a page of an export reads it: its data whole, as stored (JSON.parse of the text of
 * its jsonb, as the list's rows are parsed), its expanded relations' values replaced in it. What
 * the answer shows of the data is the writer's to pick (`shownDataKeys`): copying it into the
 * list's item first made an object per record that V8 kept past young collections, and the
 * api's memory grew with the export (decision 164).
 */
export type ExportedRecord = Omit<RecordOutput, 'model'>;

/** A record's line. */
export type ExportLine = (record: ExportedRecord) => string;

/**
 * csvRecord of the list's item: the id, each of `columns` (a key the item does not show is an
 * empty cell, as in the item it is absent), createdAt, updatedAt, CRLF.
 */
export function csvLines(columns: readonly string[], fields: readonly FieldShape[], selected: ReadonlySet<string> | undefined): ExportLine {
  const shown = new Set(shownDataKeys(fields, selected));
  const cells = columns.map((key) => (shown.has(key) ? key : null));
  return (record) => csvRecord(record, cells);
}

/**
 * JSON.stringify of the list's item and a line feed, written member by member in the item's order
 * (id, model, title, the data's shown keys in field order, createdAt, updatedAt, createdBy,
 * updatedBy); export-lines.spec.ts holds it to JSON.stringify of the items.
 */
export function ndjsonLines(modelKey: string, fields: readonly FieldShape[], selected: ReadonlySet<string> | undefined): ExportLine {
  const shown = shownDataKeys(fields, selected).map((key) => ({ key, name: `${JSON.stringify(key)}:` }));
  const model = `,"model":${JSON.stringify(modelKey)},"title":`;
  return (record) => {
    let data = '';
    for (const { key, name } of shown) {
      if (Object.hasOwn(record.data, key)) data += `${data === '' ? '' : ','}${name}${JSON.stringify(record.data[key])}`;
    }
    return `{"id":${JSON.stringify(record.id)}${model}${JSON.stringify(record.title)},"data":{${data}},"createdAt":${JSON.stringify(record.createdAt)},"updatedAt":${JSON.stringify(record.updatedAt)},"createdBy":${JSON.stringify(record.createdBy)},"updatedBy":${JSON.stringify(record.updatedBy)}}\n`;
  };
}

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
 * columns the answer shows, its data as the text of its jsonb, and each expanded relation's
 * titles. Only these: the planner drops the list query's other outputs (its sort values).
 */
export function exportColumns(expanded: readonly FieldShape[] | undefined): SqlFragment {
  const titles = (expanded ?? []).map((_, index) => trustedSql(`listed.${expandedTitlesColumn(index)}::text`));
  return joinSql(
    [trustedSql('listed.id, listed.title, listed.data::text, listed.created_at, listed.updated_at, listed.created_by, listed.updated_by'), ...titles],
    ', ',
  );
}

/** The record a row of `exportColumns(expanded)` holds, its relations expanded with the titles the row carries. */
export function exportedRecord(values: ReadonlyArray<string | null>, expanded: readonly FieldShape[] | undefined): ExportedRecord {
  const record: ExportedRecord = {
    id: values[ID] as string,
    title: values[TITLE] as string,
    data: JSON.parse(values[DATA] as string) as Record<string, unknown>,
    createdAt: values[CREATED_AT] as string,
    updatedAt: values[UPDATED_AT] as string,
    createdBy: values[CREATED_BY] as string,
    updatedBy: values[UPDATED_BY] as string,
  };
  expanded?.forEach((field, index) => {
    const titles = values[FIRST_TITLES + index];
    expandWithTitles(record, field, titles === null ? {} : (JSON.parse(titles) as Record<string, string>));
  });
  return record;
}
