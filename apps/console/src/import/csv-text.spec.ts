import { describe, expect, it } from 'vitest';
import { parseCsvText, toCsvText } from './csv-text';

describe('CSV text', () => {
  it('reads a header and rows, with quotes, a byte order mark and blank lines', () => {
    const csv = parseCsvText('\uFEFFTitle,Notes\r\n"A, quoted",plain\r\n\r\n"Line\nbreak","say ""hi"""\r\n');
    expect(csv.headers).toEqual(['Title', 'Notes']);
    expect(csv.rows).toEqual([
      ['A, quoted', 'plain'],
      ['Line\nbreak', 'say "hi"'],
    ]);
    expect(csv.problems).toEqual([]);
  });

  it('detects a semicolon delimiter', () => {
    expect(parseCsvText('Title;Amount\nA;1,5\n').rows).toEqual([['A', '1,5']]);
  });

  it('reports a row of the wrong width by data row', () => {
    const csv = parseCsvText('a,b\n1,2\n3\n');
    expect(csv.problems[0]?.row).toBe(1);
  });

  it('writes rows back, quoting what needs it', () => {
    expect(toCsvText(['Title', 'Errors'], [['A, b', 'Amount: "x"']])).toBe('Title,Errors\r\n"A, b","Amount: ""x"""');
  });
});
