import type { EntityManager } from '@mikro-orm/postgresql';
import { executeStreamed, withReadSnapshot } from '@mrp/platform';
import { runSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import { exportColumns, exportedRecord, type ExportLine } from './export-lines';
import { ExportPieces } from './export-pieces';
import { buildListQuery, keysetRowQuery, sortValueColumn, type ListQuerySpec } from './list-query';

/** Rows an export reads per statement: each page is its own statement, so no statement holds a connection for a whole export. */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * Rows of each page after the first of an export: a statement is planned for every page, which
 * costs as much as writing a few thousand lines, so the first page stays small (the answer starts
 * soon) and later ones are larger, within about a budget of bytes.
 */
export const EXPORT_TEXT_PAGE_SIZE = 10_000;

/** About the most text one page carries. */
export const EXPORT_PAGE_BYTES = 4 * 1024 * 1024;

export interface TextPagesOptions {
  pageSize?: number;
  /** The first page's rows; default pageSize. */
  firstPageSize?: number;
  /** About the most text a page holds (its size in rows follows the last page's bytes per row). */
  pageBytes?: number;
  /** The rows of the page after one: default pageSize. */
  nextPageSize?: () => number;
  /** The most one page's statement may run, when it may run longer than the connection's limit. */
  statementTimeoutMs?: number;
}

type PageSpec = Omit<ListQuerySpec, 'after' | 'limit'>;

interface Page<T> {
  content: T;
  rows: number;
  /** The last row's id and sort values; undefined for an empty page. */
  last: Record<string, unknown> | undefined;
}

/**
 * Pages of the list's own query (so filter, search, sort and row-level access are the list's) by
 * keyset, each read only when the consumer asks for it, by a statement of its own, in a
 * transaction of its own that reads one snapshot (what `read` reads after the page sees the page's rows as they were).
 */
async function* keysetPages<T>(
  em: EntityManager,
  spec: PageSpec,
  { pageSize = EXPORT_PAGE_SIZE, firstPageSize = pageSize, nextPageSize = () => pageSize, statementTimeoutMs }: TextPagesOptions,
  read: (em: EntityManager, query: SqlFragment) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let after: ListQuerySpec['after'];
  for (let limit = firstPageSize; ; limit = nextPageSize()) {
    const query = buildListQuery({ ...spec, after, limit });
    const page = await withReadSnapshot(em, { statementTimeoutMs }, (within) => read(within, query));
    if (page.rows > 0) yield page.content;
    if (page.rows < limit || !page.last) return;
    const last = page.last;
    after = { values: spec.sort.terms.map((_, index) => (last[sortValueColumn(index)] as string | null) ?? null), id: last['id'] as string };
  }
}

/**
 * Every record a list would show, as text (its lines, in the list's order). A page is one
 * statement that reads of each row only what its answer shows (`exportColumns`, the data as
 * the text of its jsonb); each row is written as its line as it arrives (`exportedRecord`, then `line`,
 * the writer held to the list's items) straight into pieces of bytes (`ExportPieces`), so neither
 * the rows nor their strings outlive the moment they arrive: a page holds only its pieces,
 * outside V8's heap, until they are written (decision 158). The database does what
 * COPY does for a plain table (each row's values as text), and the api, otherwise idle while it
 * waits, writes the lines beside it (decision 164). After the first, a page takes as many rows as
 * the last one's bytes per row say fit in EXPORT_PAGE_BYTES.
 */
export async function* textPages(
  em: EntityManager,
  spec: PageSpec,
  line: ExportLine,
  { pageSize = EXPORT_TEXT_PAGE_SIZE, firstPageSize = EXPORT_PAGE_SIZE, pageBytes = EXPORT_PAGE_BYTES, ...options }: TextPagesOptions = {},
): AsyncGenerator<Buffer[]> {
  let size = firstPageSize;
  const pages = keysetPages(em, spec, { ...options, firstPageSize, pageSize, nextPageSize: () => size }, async (within, query) => {
    // Compiling a page's plan (JIT, where the server has it) costs more than it saves.
    await runSql(within, trustedSql('SET LOCAL jit = off'));
    const written = new ExportPieces();
    let lastId: string | undefined;
    // The keyset's values are needed of the last row only, read after the page in its snapshot
    // (writing every row's sort values cost the database as much as a cell).
    const statement = sql`SELECT ${exportColumns(spec.expanded)} FROM (${query}) AS listed`;
    const rows = await executeStreamed(within, statement.text, statement.params, (values) => {
      const record = exportedRecord(values, spec.expanded);
      lastId = record.id;
      written.add(line(record));
    });
    const { pieces, bytes } = written.finish();
    if (lastId === undefined) return { content: pieces, rows, last: undefined };
    size = Math.max(1, Math.min(pageSize, Math.floor((pageBytes * rows) / Math.max(1, bytes))));
    const [last] = await runSql(within, keysetRowQuery(spec.sort, lastId));
    if (!last) throw new Error('The last record of an export page was not found in the snapshot that listed it');
    return { content: pieces, rows, last };
  });
  yield* pages;
}
