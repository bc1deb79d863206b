import fc from 'fast-check';
import { csvErrorTrailer, csvHeader, csvLine, csvRecord, csvValue } from './export-csv';
import type { RecordOutput } from './schemas';

describe('CSV export writer', () => {
  it.each([
    [null, ''],
    [undefined, ''],
    ['plain', 'plain'],
    [42, '42'],
    [-3.5, '-3.5'],
    [true, 'true'],
    [false, 'false'],
    ['2030-01-05', '2030-01-05'],
    [['urgent', 'vip'], '["urgent","vip"]'],
    [{ fileId: 'f1', name: 'a.pdf' }, '{"fileId":"f1","name":"a.pdf"}'],
    [{ id: 'r1', title: 'Acme' }, 'Acme'],
    [{ id: 'r1' }, 'r1'],
    [[{ id: 'r1', title: 'Acme' }, { id: 'r2' }], '["Acme","r2"]'],
  ])('writes %j as %j', (value, text) => {
    expect(csvValue(value)).toBe(text);
  });

  it.each(['=SUM(A1)', '+1', '-1', '@cmd', '\tx', '\rx'])('prefixes text starting %j with a quote (formula injection)', (text) => {
    expect(csvValue(text)).toBe(`'${text}`);
  });

  it('writes every number as JavaScript does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(-0, 1e21, 5e-324, 2 ** 53 + 2, 0.1 + 0.2, Infinity, -Infinity)), (value) => {
        expect(csvValue(value)).toBe(String(value));
      }),
    );
  });

  it('guards a related title too, but never a number', () => {
    expect(csvValue({ id: 'r1', title: '=HYPERLINK("x")' })).toBe(`'=HYPERLINK("x")`);
    expect(csvValue(-1)).toBe('-1');
  });

  it('quotes cells with quotes, commas and line breaks (RFC 4180) and ends lines with CRLF', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', 'two\nlines', 'cr\rhere', ''])).toBe('a,"b,c","say ""hi""","two\nlines","cr\rhere",\r\n');
  });

  it('writes a header and records in the same column order', () => {
    const record: RecordOutput = {
      id: 'id-1',
      model: 'tasks',
      title: 'T',
      data: { title: 'T', amount: 3 },
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-02T00:00:00.000Z',
      createdBy: 'u',
      updatedBy: 'u',
    };
    expect(csvHeader(['title', 'amount', 'missing'])).toBe('id,title,amount,missing,createdAt,updatedAt\r\n');
    expect(csvRecord(record, ['title', 'amount', 'missing'])).toBe('id-1,T,3,,2030-01-01T00:00:00.000Z,2030-01-02T00:00:00.000Z\r\n');
  });

  it('ends a failed export with an #error line', () => {
    expect(csvErrorTrailer('unavailable', 'The export stopped, try again')).toBe('#error,unavailable,"The export stopped, try again"\r\n');
    expect(csvErrorTrailer('validation_failed', '=HYPERLINK("x") is not a field')).toBe(`#error,validation_failed,"'=HYPERLINK(""x"") is not a field"\r\n`);
  });
});
