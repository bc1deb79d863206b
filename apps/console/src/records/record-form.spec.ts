import { validateRecordData, type FieldError } from '@mrp/field-validation';
import { describe, expect, it } from 'vitest';
import { RpcError } from '../api/rpc-error';
import type { DataField, DataRecord } from '../data-models/types';
import { checkRecordData, dataFromForm, formValuesOf, serverFieldErrors, valueFromInput, type RecordFormValues } from './record-form';

function field(key: string, type: DataField['type'], config: Record<string, unknown> = {}, required = false, position = 1): DataField {
  return { key, name: key, type, config, required, position, indexed: false, indexStatus: null, indexError: null, archivedAt: null };
}

const FIELDS: DataField[] = [
  field('title', 'TEXT', { maxLength: 20 }, true, 0),
  field('email', 'EMAIL', {}, false, 1),
  field('score', 'NUMBER', { min: 0, max: 100, precision: 0 }, false, 2),
  field('status', 'SELECT', { options: [{ value: 'open', label: 'Open' }] }, true, 3),
  field('tags', 'MULTI_SELECT', { options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }], maxSelected: 1 }, false, 4),
  field('company', 'RELATION', { targetModel: 'companies', multiple: false }, false, 5),
  field('site', 'URL', {}, false, 6),
  field('due', 'DATETIME', {}, false, 7),
  field('born', 'DATE', {}, false, 8),
  field('contract', 'FILE', { allowedMimeTypes: ['application/pdf'] }, false, 9),
  field('total', 'FORMULA', { expression: '{score} * 2', resultType: 'NUMBER' }, false, 10),
];

/** What the server does with the same input: the JSON it receives, through field-validation's record rules. */
function serverErrors(data: Record<string, unknown>, mode: 'create' | 'update'): FieldError[] {
  const received: unknown = JSON.parse(JSON.stringify(data));
  const result = validateRecordData(FIELDS, received, { mode });
  return result.ok ? [] : result.errors;
}

function filled(changes: Partial<RecordFormValues>): RecordFormValues {
  return { ...formValuesOf(FIELDS), title: 'Ada', status: 'open', ...changes } as RecordFormValues;
}

describe('the record form checks values as the server does', () => {
  const cases: Array<{ name: string; values: RecordFormValues; expected: Array<Pick<FieldError, 'field' | 'code'>> }> = [
    { name: 'an invalid email', values: filled({ email: 'ada@' }), expected: [{ field: 'email', code: 'invalid_format' }] },
    { name: 'a number that is not one', values: filled({ score: 'twelve' }), expected: [{ field: 'score', code: 'invalid_type' }] },
    { name: 'a number out of bounds', values: filled({ score: '101' }), expected: [{ field: 'score', code: 'out_of_range' }] },
    { name: 'decimals where whole numbers are asked', values: filled({ score: '1.5' }), expected: [{ field: 'score', code: 'invalid_format' }] },
    { name: 'missing required values', values: filled({ title: '', status: '' }), expected: [{ field: 'title', code: 'required' }, { field: 'status', code: 'required' }] },
    { name: 'too long a title', values: filled({ title: 'x'.repeat(21) }), expected: [{ field: 'title', code: 'too_long' }] },
    { name: 'a line break in a TEXT field', values: filled({ title: 'two\nlines' }), expected: [{ field: 'title', code: 'invalid_format' }] },
    { name: 'too many options', values: filled({ tags: ['a', 'b'] }), expected: [{ field: 'tags', code: 'too_long' }] },
    { name: 'a relation that is no record id', values: filled({ company: 'acme' }), expected: [{ field: 'company', code: 'invalid_format' }] },
    { name: 'a relative URL', values: filled({ site: '/about' }), expected: [{ field: 'site', code: 'invalid_format' }] },
    { name: 'an impossible date', values: filled({ born: '2026-02-30' }), expected: [{ field: 'born', code: 'invalid_format' }] },
    {
      name: 'a file of a type the field refuses',
      values: filled({ contract: { url: 'https://files.example.com/a.png', name: 'a.png', mimeType: 'image/png', size: '' } }),
      expected: [{ field: 'contract.mimeType', code: 'invalid_option' }],
    },
    { name: 'text that cannot be stored', values: filled({ title: 'nul\u0000' }), expected: [{ field: 'title', code: 'invalid_format' }] },
  ];

  for (const { name, values, expected } of cases) {
    it(`refuses ${name} with the server's codes and messages`, () => {
      const data = dataFromForm(FIELDS, values, 'create');
      const browser = checkRecordData(FIELDS, data, 'create');
      expect(browser.errors.map(({ field: path, code }) => ({ field: path, code }))).toEqual(expected);
      expect(browser.errors).toEqual(serverErrors(data, 'create'));
      // Each message is shown under its field.
      const root = expected[0]?.field.split('.')[0] as string;
      expect(browser.placed.byKey[root]).toBe(browser.errors[0]?.message);
      expect(browser.placed.first).toBe(root);
    });
  }

  it("reads a number typed with the locale's thousands separators, and says how to write one it cannot read", () => {
    const amount = field('amount', 'NUMBER');
    expect(valueFromInput(amount, (1200.5).toLocaleString(undefined, { minimumFractionDigits: 2 }))).toBe(1200.5);
    expect(valueFromInput(amount, '1200.50')).toBe(1200.5);
    const refused = checkRecordData(FIELDS, dataFromForm(FIELDS, filled({ score: 'twelve' }), 'create'), 'create');
    expect(refused.placed.byKey.score).toBe('Must be a number, not text: use digits and a decimal point, e.g. 1200.50.');
  });

  it('says in the words of field-validation why an email is refused', () => {
    const data = dataFromForm(FIELDS, filled({ email: 'not-an-email' }), 'create');
    expect(checkRecordData(FIELDS, data, 'create').placed.byKey).toEqual({ email: 'Must be an email address such as name@example.com.' });
  });

  it('passes what the server accepts, typed: numbers, booleans of the inputs, UTC date-times, files', () => {
    const values = filled({
      email: 'ada@example.com',
      score: '42',
      tags: ['b'],
      due: '2026-03-01T09:30',
      contract: { url: 'https://files.example.com/c.pdf', name: 'c.pdf', mimeType: 'application/pdf', size: '1200' },
    });
    const data = dataFromForm(FIELDS, values, 'create');
    expect(data).toEqual({
      title: 'Ada',
      email: 'ada@example.com',
      score: 42,
      status: 'open',
      tags: ['b'],
      due: new Date('2026-03-01T09:30').toISOString(),
      contract: { url: 'https://files.example.com/c.pdf', name: 'c.pdf', mimeType: 'application/pdf', size: 1200 },
    });
    expect(checkRecordData(FIELDS, data, 'create').errors).toEqual([]);
    expect(serverErrors(data, 'create')).toEqual([]);
  });

  it('sends on update only what changed, and null for what was cleared', () => {
    const record: DataRecord = {
      id: '0190aaaa-0000-7000-8000-000000000001',
      model: 'contacts',
      title: 'Ada',
      data: { title: 'Ada', status: 'open', email: 'ada@example.com', score: 7, due: '2026-03-01T09:30:15.000Z', total: 14 },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      createdBy: 'u',
      updatedBy: 'u',
    };
    const initial = formValuesOf(FIELDS, record);
    expect(initial).toMatchObject({ title: 'Ada', email: 'ada@example.com', score: '7', tags: [] });
    const data = dataFromForm(FIELDS, { ...initial, email: '', score: '8' }, 'update', initial);
    // The untouched date-time keeps its seconds: it is not sent at all.
    expect(data).toEqual({ email: '', score: 8 });
    expect(checkRecordData(FIELDS, data, 'update').errors).toEqual(serverErrors(data, 'update'));
    expect(checkRecordData(FIELDS, { status: null }, 'update').placed.byKey).toEqual({ status: '"status" is required.' });
  });
});

describe("the server's details[] on the form", () => {
  const refusal = (details: Array<{ field: string; code: string; message: string }>) =>
    new RpcError({ code: 'validation_failed', message: 'The request is invalid', status: 400, requestId: 'req-1', details });

  it('puts each refusal under its field, the first in form order to be focused', () => {
    const placed = serverFieldErrors(
      FIELDS,
      refusal([
        { field: 'company', code: 'not_found', message: 'No record 0190aaaa-0000-7000-8000-000000000009 in model "companies"' },
        { field: 'email', code: 'invalid_format', message: 'Must be an email address such as name@example.com.' },
      ]),
    );
    expect(placed.byKey).toEqual({
      company: 'No record 0190aaaa-0000-7000-8000-000000000009 in model "companies"',
      email: 'Must be an email address such as name@example.com.',
    });
    expect(placed.first).toBe('email');
    expect(placed.unplaced).toEqual([]);
  });

  it("maps paths below a field, and the input schema's data. prefix, to the field", () => {
    const placed = serverFieldErrors(
      FIELDS,
      refusal([
        { field: 'tags[1]', code: 'invalid_option', message: 'Must be one of the configured options.' },
        { field: 'contract.url', code: 'invalid_format', message: 'Must be an absolute http:// or https:// URL.' },
        { field: 'data.title', code: 'invalid_format', message: 'must not contain a null character' },
      ]),
    );
    expect(placed.byKey).toEqual({
      tags: 'Must be one of the configured options.',
      contract: 'Must be an absolute http:// or https:// URL.',
      title: 'must not contain a null character',
    });
    expect(placed.first).toBe('title');
  });

  it('keeps refusals of no field of the form (a formula, the body) for the notice above it', () => {
    const placed = serverFieldErrors(
      FIELDS,
      refusal([
        { field: 'total', code: 'read_only', message: '"total" is a formula field and is computed.' },
        { field: '$', code: 'invalid_type', message: 'Record data must be a JSON object.' },
      ]),
    );
    expect(placed.byKey).toEqual({});
    expect(placed.first).toBeUndefined();
    expect(placed.unplaced.map((detail) => detail.field)).toEqual(['total', '$']);
  });

  it('places nothing for failures without details', () => {
    expect(serverFieldErrors(FIELDS, new Error('offline'))).toEqual({ byKey: {}, unplaced: [], first: undefined });
  });
});
