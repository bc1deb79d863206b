import { describe, expect, it } from 'vitest';
import type { RpcClient } from '../api/rpc-client';
import { RpcError } from '../api/rpc-error';
import { mapColumns } from './column-mapping';
import { field } from './import-fixtures';
import { lookUpTitles, titlesToFind, type ModelTitles } from './relation-titles';
import { checkRows } from './row-check';

const FIELDS = [
  field('title', 'TEXT', { name: 'Title', required: true }),
  field('company', 'RELATION', { name: 'Company', config: { targetModel: 'companies' } }),
  field('partners', 'RELATION', { name: 'Partners', config: { targetModel: 'companies', multiple: true } }),
];
const ACME = '0190aaaa-0000-7000-8000-00000000ac01';
const GLOBEX = '0190aaaa-0000-7000-8000-00000000ac02';
const TWIN_A = '0190aaaa-0000-7000-8000-00000000ac03';
const TWIN_B = '0190aaaa-0000-7000-8000-00000000ac04';
const COMPANIES = [
  { id: ACME, title: 'Acme' },
  { id: '0190aaaa-0000-7000-8000-00000000ac05', title: 'Acme Holdings' },
  { id: GLOBEX, title: 'Globex' },
  { id: TWIN_A, title: 'Twin' },
  { id: TWIN_B, title: 'twin' },
];

/** records.list over COMPANIES as the server reads the filter: an `or` of case-insensitive prefixes, in pages of two. */
function fakeRpc(refuse?: RpcError) {
  const calls: Array<Record<string, unknown>> = [];
  const rpc = {
    call: async (procedure: string, input: Record<string, unknown>) => {
      calls.push(input);
      if (refuse) throw refuse;
      expect(procedure).toBe('records.list');
      const prefixes = (input.filter as { or: Array<{ value: string }> }).or.map((condition) => condition.value.toLowerCase());
      const matching = COMPANIES.filter((record) => prefixes.some((prefix) => record.title.toLowerCase().startsWith(prefix)));
      const start = Number(input.cursor ?? 0);
      return { items: matching.slice(start, start + 2), nextCursor: start + 2 < matching.length ? String(start + 2) : null };
    },
  } as unknown as RpcClient;
  return { rpc, calls };
}

const headers = ['Title', 'Company', 'Partners'];
const mapping = mapColumns(headers, FIELDS);

describe('relation cells by title', () => {
  it('links a title to the one record bearing it, in any case, and ids as written', async () => {
    const rows = [
      ['One', 'ACME', 'globex; acme'],
      ['Two', GLOBEX, ''],
    ];
    const { rpc } = fakeRpc();
    const titles = await lookUpTitles(rpc, titlesToFind(FIELDS, mapping, rows), new Map());
    const checked = checkRows(FIELDS, mapping, rows, titles);
    expect(checked.invalid).toEqual([]);
    expect(checked.valid.map((row) => row.data)).toEqual([
      { title: 'One', company: ACME, partners: [GLOBEX, ACME] },
      { title: 'Two', company: GLOBEX },
    ]);
  });

  it('refuses a title several records bear, or none, in the row, never picking one', async () => {
    const rows = [
      ['One', 'Twin', ''],
      ['Two', 'Initech', ''],
      ['Three', 'Acme', 'Acme; Nobody'],
    ];
    const { rpc } = fakeRpc();
    const checked = checkRows(FIELDS, mapping, rows, await lookUpTitles(rpc, titlesToFind(FIELDS, mapping, rows), new Map()));
    expect(checked.valid).toEqual([]);
    expect(checked.invalid).toEqual([
      { row: 0, errors: [{ column: 1, fieldKey: 'company', message: '2 companies records are titled “Twin”: write the id of the one you mean' }] },
      { row: 1, errors: [{ column: 1, fieldKey: 'company', message: 'No companies record you can see is titled “Initech”' }] },
      { row: 2, errors: [{ column: 2, fieldKey: 'partners', message: 'No companies record you can see is titled “Nobody”' }] },
    ]);
  });

  it('asks in batches, never once per row, and asks again only for titles not looked up yet', async () => {
    const rows = Array.from({ length: 240 }, (_, index) => [`Row ${index}`, `Company ${index % 120}`, '']);
    const { rpc, calls } = fakeRpc();
    const known = new Map<string, ModelTitles>();
    await lookUpTitles(rpc, titlesToFind(FIELDS, mapping, rows), known);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toMatchObject({ model: 'companies', fields: 'title', limit: 100 });
    expect((calls[0]?.filter as { or: unknown[] }).or).toHaveLength(50);

    await lookUpTitles(rpc, titlesToFind(FIELDS, mapping, [...rows, ['New', 'Acme', '']]), known);
    expect(calls).toHaveLength(4);
    expect(calls[3]?.filter).toEqual({ or: [{ field: 'title', op: 'startsWith', value: 'Acme' }] });
  });

  it('says when the related model cannot be read, in each row naming one of its titles', async () => {
    const { rpc } = fakeRpc(new RpcError({ code: 'forbidden', message: 'Missing permission records.read', status: 403, requestId: 'r' }));
    const rows = [['One', 'Acme', '']];
    const checked = checkRows(FIELDS, mapping, rows, await lookUpTitles(rpc, titlesToFind(FIELDS, mapping, rows), new Map()));
    expect(checked.invalid[0]?.errors).toEqual([
      { column: 1, fieldKey: 'company', message: '“Acme” cannot be looked up among companies records (you do not have permission to do this): write its id' },
    ]);
  });
});
