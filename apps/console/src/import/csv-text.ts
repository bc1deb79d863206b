import Papa from 'papaparse';

/** A CSV file as read: its header row and its data rows, every cell as text. */
export interface ParsedCsv {
  headers: string[];
  rows: string[][];
  /** What the parser could not read cleanly (an unclosed quote, a row of another width), by data row. */
  problems: Array<{ row: number | null; message: string }>;
}

/** More problems than this are summed up, not listed. */
const MAX_PROBLEMS = 20;

/**
 * Parses CSV text with papaparse: the delimiter is detected (`,` `;` tab `|`), quotes follow RFC
 * 4180, a byte order mark and blank lines are dropped. The first row is the header.
 */
export function parseCsvText(text: string): ParsedCsv {
  const result = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), { skipEmptyLines: 'greedy' });
  const [headerRow = [], ...rows] = result.data;
  const problems: ParsedCsv['problems'] = result.errors
    // A file of one column has no delimiter to detect; the comma it falls back to is right.
    .filter((error) => error.code !== 'UndetectableDelimiter')
    // papaparse numbers rows from the header (0); ours from the first data row.
    .map((error) => ({ row: error.row === undefined || error.row === null ? null : error.row - 1, message: error.message }));
  rows.forEach((cells, row) => {
    if (cells.length !== headerRow.length) problems.push({ row, message: `${cells.length} cells where the header has ${headerRow.length}` });
  });
  return { headers: headerRow.map((header) => header.trim()), rows, problems: problems.slice(0, MAX_PROBLEMS) };
}

/** A CSV text of the rows (header first), quoted where needed, for a spreadsheet to open. */
export function toCsvText(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return Papa.unparse([header as string[], ...(rows as string[][])], { newline: '\r\n' });
}
