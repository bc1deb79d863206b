import type { EntityManager } from '@mikro-orm/postgresql';
import { withStatementTimeout } from '@mrp/platform';
import { joinSql, runSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import type { ExportLineSql } from './export-text';
import { buildListQuery, sortValueColumn, type ListQuerySpec } from './list-query';
import type { RecordRow } from './record-rows';

/** Rows an export reads per statement: each page is its own statement, so no statement holds a connection for a whole export. */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * Rows of each page after the first when the database writes the text: a statement is planned
 * for every page, which costs as much as writing a few thousand lines, so the first page stays
 * small (the answer starts soon) and later ones are larger, within a budget of bytes.
 */
export const EXPORT_TEXT_PAGE_SIZE = 10_000;

/** The most text one page carries (beyond its first line): records are up to a few hundred kB each. */
export const EXPORT_PAGE_BYTES = 4 * 1024 * 1024;

/** A listed row: the record's columns, its sort values and its expanded relations' titles. */
export type ListedRow = RecordRow & Record<string, unknown>;

export interface ListedPagesOptions {
  pageSize?: number;
  /** The first page's rows; default pageSize. */
  firstPageSize?: number;
  /** textPages: the most text a page holds beyond its first line. */
  pageBytes?: number;
  /** The most one page's statement may run, when it may run longer than the connection's limit. */
  statementTimeoutMs?: number;
}

type PageSpec = Omit<ListQuerySpec, 'after' | 'limit'>;

interface Page<T> {
  content: T;
  /** Rows read, and of those the ones the page holds (the first ones). */
  rows: number;
  kept: number;
  /** The last row's id and sort values; undefined for an empty page. */
  last: Record<string, unknown> | undefined;
}

/**
 * Pages of the list's own query (so filter, search, sort and row-level access are the list's) by
 * keyset, each read only when the consumer asks for it, by a statement of its own.
 */
async function* keysetPages<T>(
  em: EntityManager,
  spec: PageSpec,
  { pageSize = EXPORT_PAGE_SIZE, firstPageSize = pageSize, statementTimeoutMs }: ListedPagesOptions,
  read: (em: EntityManager, query: SqlFragment) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let after: ListQuerySpec['after'];
  for (let limit = firstPageSize; ; limit = pageSize) {
    const query = buildListQuery({ ...spec, after, limit });
    const page = statementTimeoutMs === undefined ? await read(em, query) : await withStatementTimeout(em, statementTimeoutMs, (within) => read(within, query));
    if (page.kept > 0) yield page.content;
    if ((page.rows < limit && page.kept === page.rows) || !page.last) return;
    const last = page.last;
    after = { values: spec.sort.terms.map((_, index) => (last[sortValueColumn(index)] as string | null) ?? null), id: last['id'] as string };
  }
}

/** Every record a list would show, as its rows, without holding more than one page. */
export function listedPages(em: EntityManager, spec: PageSpec, options: ListedPagesOptions = {}): AsyncGenerator<ListedRow[]> {
  return keysetPages(em, spec, options, async (within, query) => {
    const rows = await runSql<ListedRow>(within, query);
    return { content: rows, rows: rows.length, kept: rows.length, last: rows.at(-1) };
  });
}

/**
 * Every record a list would show, each page as one text (its rows' lines, built by the database in
 * the list's order): one value to read per page, not a row per record. A page keeps its rows up
 * to EXPORT_PAGE_BYTES of text (at least one); the next starts after the last one kept.
 */
export function textPages(
  em: EntityManager,
  spec: PageSpec,
  line: ExportLineSql,
  { pageSize = EXPORT_TEXT_PAGE_SIZE, firstPageSize = EXPORT_PAGE_SIZE, pageBytes = EXPORT_PAGE_BYTES, ...options }: ListedPagesOptions = {},
): AsyncGenerator<string> {
  const sortValues = spec.sort.terms.map((_, index) => trustedSql(sortValueColumn(index)));
  const listedSortValues = joinSql(sortValues.map((column) => sql`listed.${column}`), ', ');
  const keyColumns = joinSql([trustedSql('id'), ...sortValues], ', ');
  return keysetPages(em, { ...spec, columns: line.columns }, { pageSize, firstPageSize, ...options }, async (within, query) => {
    // The list query's ORDER BY sets the order of its rows, which the windows keep; OFFSET 0 has each line written once.
    const [row] = await runSql<{ text: string | null; lines: number; kept: number } & Record<string, unknown>>(
      within,
      sql`WITH listed AS MATERIALIZED (${query}),
        page AS MATERIALIZED (
          SELECT row_number() OVER running AS position, sum(octet_length(lined.line)) OVER running - octet_length(lined.line) AS before, lined.*
          FROM (SELECT listed.id, ${listedSortValues}, ${line.line} AS line FROM listed OFFSET 0) AS lined
          WINDOW running AS (ROWS UNBOUNDED PRECEDING)),
        kept AS (SELECT * FROM page WHERE page.before < ${pageBytes})
        SELECT (SELECT string_agg(kept.line, '' ORDER BY kept.position) FROM kept) AS text, (SELECT count(*)::int FROM page) AS lines, (SELECT count(*)::int FROM kept) AS kept, last.*
        FROM (VALUES (1)) AS always
        LEFT JOIN LATERAL (SELECT ${keyColumns} FROM kept ORDER BY kept.position DESC LIMIT 1) AS last ON true`,
    );
    return { content: row.text ?? '', rows: row.lines, kept: row.kept, last: row.id === null ? undefined : row };
  });
}
