import { describe, expect, it } from 'vitest';
import { mapColumns } from './column-mapping';
import { DEAL_FIELDS } from './import-fixtures';
import { checkRows, spreadsheetRow } from './row-check';

describe('checking CSV rows with the record rules', () => {
  const headers = ['Title', 'Amount', 'Stage'];
  const mapping = mapColumns(headers, DEAL_FIELDS);

  it('turns good rows into record data and lists each refusal of a bad row by column', () => {
    const checked = checkRows(DEAL_FIELDS, mapping, [
      ['Deal one', '1,200.50', 'Lead'],
      ['', 'many', 'lost'],
      ['Deal three', '', ''],
    ]);
    expect(checked.valid).toEqual([
      { row: 0, data: { title: 'Deal one', amount: 1200.5, stage: 'lead' } },
      { row: 2, data: { title: 'Deal three' } },
    ]);
    expect(checked.invalid).toHaveLength(1);
    const [bad] = checked.invalid;
    expect(bad?.row).toBe(1);
    expect(bad?.errors.map((error) => [error.column, error.fieldKey])).toEqual([
      [0, 'title'],
      [1, 'amount'],
      [2, 'stage'],
    ]);
    expect(bad?.errors.every((error) => error.message.length > 0)).toBe(true);
  });

  it('refuses a row missing a required field that no column fills, with no column to point at', () => {
    const checked = checkRows(DEAL_FIELDS, mapColumns(['Amount'], DEAL_FIELDS), [['5']]);
    expect(checked.invalid[0]?.errors).toEqual([expect.objectContaining({ column: null, fieldKey: 'title' })]);
  });

  it('numbers rows as a spreadsheet does, after the header', () => {
    expect(spreadsheetRow(0)).toBe(2);
  });
});
