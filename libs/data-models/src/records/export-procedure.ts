import { EXPORT_FORMATS, RecordsExportInput, type ExportFormat } from './record-inputs';
import { defineProcedure } from '@mrp/platform';
import { isLive } from '../models/model-store';
import { textPages } from './export-pages';
import { csvLines, ndjsonLines } from './export-lines';
import { listedRecords } from './listed-records';

export { EXPORT_FORMATS, type ExportFormat };

/** What records.export answers: how to write the records, and the records, a page at a time. */
export interface RecordExport {
  /** The model's key (a safe file name: lowercase letters, digits and underscores). */
  model: string;
  format: ExportFormat;
  /** The data keys each record is written with, in order: the `fields` selection, else every live field. */
  columns: string[];
  /**
   * The records' lines (the header apart), in the list's order, one page per `next()` as pieces of
   * UTF-8 text to write in turn: a page is read only when asked for, each by a statement of its own.
   * Whoever stops early calls `return()`.
   */
  pages: AsyncGenerator<Buffer[], void, undefined>;
}

export interface ExportProcedureDeps {
  /** The most one page's statement may run (DATABASE_TASK_STATEMENT_TIMEOUT_MS in the api); unset: the connection's limit. */
  exportStatementTimeoutMs?: number;
}

/**
 * records.export: every record records.list would show the caller for the same input (the list's
 * own reading of it and its own query, so the same rows), as pages to stream. Only a REST route
 * serves it (it writes the stream as it reads the pages); nothing is read past the model before
 * the first page is asked for.
 */
export function createExportProcedure({ exportStatementTimeoutMs }: ExportProcedureDeps) {
  return defineProcedure({
    name: 'records.export',
    summary: "Exports every record of a model the caller may read, as CSV or NDJSON (REST only: the answer is streamed)",
    scope: 'organization',
    permission: 'records.read',
    readOnly: true,
    streamsAnswer: true,
    input: RecordsExportInput,
    async handler(ctx, input): Promise<RecordExport> {
      const listed = await listedRecords(ctx, input);
      const columns = listed.selected ? [...listed.selected] : listed.fields.filter(isLive).map((field) => field.key);
      const format = input.format ?? 'csv';
      const line = format === 'csv' ? csvLines(columns, listed.fields, listed.selected) : ndjsonLines(listed.model.key, listed.fields, listed.selected);
      return {
        model: listed.model.key,
        format,
        columns,
        pages: textPages(ctx.em, listed.query, line, { statementTimeoutMs: exportStatementTimeoutMs }),
      };
    },
  });
}
