import fc from 'fast-check';
import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';
import type { Result } from '../core/result';
import { FIELD_TYPES } from '../core/field-types';
import { isEmptyFieldValue } from './empty-value';
import { compileRecordValidator, validateRecordData } from './validate-record-data';

const field = (key: string, type: FieldType, config: Record<string, unknown> = {}, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  key,
  type,
  config,
  required: false,
  ...extra,
});

const FIELDS: FieldDefinition[] = [
  field('title', 'TEXT', { maxLength: 100 }, { required: true }),
  field('price', 'NUMBER', { min: 0 }, { required: true }),
  field('notes', 'LONG_TEXT'),
  field('tags', 'MULTI_SELECT', { options: [{ value: 'red' }, { value: 'blue' }] }),
  field('labels', 'MULTI_SELECT', { options: [{ value: 'x' }] }, { required: true }),
  field('starts_at', 'DATETIME'),
  field('contact', 'EMAIL'),
  field('total', 'FORMULA', { expression: '{price} * 2', resultType: 'NUMBER' }),
  field('legacy', 'TEXT', {}, { archivedAt: '2024-01-01T00:00:00.000Z' }),
];

const VALID_CREATE = { title: 'Widget', price: 10, labels: ['x'] };

const errorList = (result: Result<unknown>) => (result.ok ? [] : result.errors.map(({ field: key, code }) => `${key}:${code}`));

describe('validateRecordData', () => {
  describe('create', () => {
    it('accepts a complete record and normalises values', () => {
      expect(
        validateRecordData(FIELDS, { ...VALID_CREATE, starts_at: '2024-01-01T10:00:00+02:00', contact: 'Ann@Example.COM', notes: null }, { mode: 'create' }),
      ).toEqual({
        ok: true,
        value: { ...VALID_CREATE, starts_at: '2024-01-01T08:00:00.000Z', contact: 'Ann@example.com', notes: null },
      });
    });

    it('requires every required field, including title, to be present and non-empty', () => {
      expect(errorList(validateRecordData(FIELDS, {}, { mode: 'create' }))).toEqual(['title:required', 'price:required', 'labels:required']);
      expect(errorList(validateRecordData(FIELDS, { title: '', price: null, labels: [] }, { mode: 'create' }))).toEqual([
        'title:required',
        'price:required',
        'labels:required',
      ]);
      expect(errorList(validateRecordData(FIELDS, { ...VALID_CREATE, title: undefined }, { mode: 'create' }))).toEqual(['title:required']);
    });

    it('requires title even when the model does not list it or marks it optional', () => {
      expect(errorList(validateRecordData([field('price', 'NUMBER')], { price: 1 }, { mode: 'create' }))).toEqual(['title:required']);
      expect(errorList(validateRecordData([field('title', 'TEXT')], {}, { mode: 'create' }))).toEqual(['title:required']);
      expect(validateRecordData([], { title: 'Only a title' }, { mode: 'create' })).toEqual({ ok: true, value: { title: 'Only a title' } });
    });

    it('counts 0, false and whitespace as values', () => {
      const fields = [field('title', 'TEXT', {}, { required: true }), field('n', 'NUMBER', {}, { required: true }), field('b', 'BOOLEAN', {}, { required: true })];
      expect(validateRecordData(fields, { title: ' ', n: 0, b: false }, { mode: 'create' })).toEqual({ ok: true, value: { title: ' ', n: 0, b: false } });
    });

    it('normalises empty optional values to null', () => {
      expect(validateRecordData(FIELDS, { ...VALID_CREATE, notes: '', tags: [] }, { mode: 'create' })).toEqual({
        ok: true,
        value: { ...VALID_CREATE, notes: null, tags: null },
      });
    });
  });

  describe('update', () => {
    it('checks only the keys of the patch', () => {
      expect(validateRecordData(FIELDS, { notes: 'More' }, { mode: 'update' })).toEqual({ ok: true, value: { notes: 'More' } });
      expect(validateRecordData(FIELDS, {}, { mode: 'update' })).toEqual({ ok: true, value: {} });
    });

    it('keeps null for cleared optional fields so the server can clear them', () => {
      expect(validateRecordData(FIELDS, { notes: null, tags: [] }, { mode: 'update' })).toEqual({ ok: true, value: { notes: null, tags: null } });
    });

    it('refuses to clear or empty a required field', () => {
      expect(errorList(validateRecordData(FIELDS, { title: null, price: null, labels: [] }, { mode: 'update' }))).toEqual([
        'title:required',
        'price:required',
        'labels:required',
      ]);
      expect(errorList(validateRecordData(FIELDS, { title: '' }, { mode: 'update' }))).toEqual(['title:required']);
    });
  });

  describe('emptiness: only null clears; "" only free text, [] only lists', () => {
    const OPTIONS = { options: [{ value: 'a' }] };
    const FILE_CONFIG = {};
    /** Per type: a valid value, and the empty form besides null it accepts, if any. */
    const BY_TYPE: ReadonlyArray<readonly [FieldType, Record<string, unknown>, unknown, '' | '[]' | 'none']> = [
      ['TEXT', {}, 'x', ''],
      ['LONG_TEXT', {}, 'x', ''],
      ['RICH_TEXT', {}, '<p>x</p>', ''],
      ['URL', {}, 'https://example.com', ''],
      ['EMAIL', {}, 'a@example.com', ''],
      ['NUMBER', {}, 1, 'none'],
      ['BOOLEAN', {}, true, 'none'],
      ['DATE', {}, '2024-01-01', 'none'],
      ['DATETIME', {}, '2024-01-01T00:00:00.000Z', 'none'],
      ['SELECT', OPTIONS, 'a', 'none'],
      ['MULTI_SELECT', OPTIONS, ['a'], '[]'],
      ['RELATION', { targetModel: 'people' }, '1b4e28ba-2fa1-41d2-883f-0016d3cca427', 'none'],
      ['RELATION', { targetModel: 'people', multiple: true }, ['1b4e28ba-2fa1-41d2-883f-0016d3cca427'], '[]'],
      ['FILE', FILE_CONFIG, { url: 'https://example.com/a.pdf', name: 'a.pdf' }, 'none'],
      ['ATTACHMENTS', FILE_CONFIG, [{ url: 'https://example.com/a.pdf', name: 'a.pdf' }], '[]'],
    ];

    it('covers every writable type', () => {
      expect(new Set(BY_TYPE.map(([type]) => type))).toEqual(new Set(FIELD_TYPES.filter((type) => type !== 'FORMULA')));
    });

    it.each(BY_TYPE)('%s %j: null clears, its own empty form clears, the other empty form is invalid_type', (type, config, _valid, emptyForm) => {
      const optional = [field('value', type, config)];
      for (const mode of ['create', 'update'] as const) {
        const data = (value: unknown) => (mode === 'create' ? { title: 't', value } : { value });
        const cleared = mode === 'create' ? { title: 't', value: null } : { value: null };
        expect(validateRecordData(optional, data(null), { mode })).toEqual({ ok: true, value: cleared });
        for (const [form, value] of [['', ''], ['[]', []]] as const) {
          const result = validateRecordData(optional, data(value), { mode });
          if (form === emptyForm) expect(result).toEqual({ ok: true, value: cleared });
          else expect(errorList(result)).toEqual(['value:invalid_type']);
        }
      }
    });

    it.each(BY_TYPE)('%s %j required: present and non-empty on create, never cleared on update', (type, config, valid, emptyForm) => {
      const required = [field('value', type, config, { required: true })];
      expect(validateRecordData(required, { title: 't', value: valid }, { mode: 'create' }).ok).toBe(true);
      expect(validateRecordData(required, { value: valid }, { mode: 'update' }).ok).toBe(true);
      expect(errorList(validateRecordData(required, { title: 't' }, { mode: 'create' }))).toEqual(['value:required']);
      expect(validateRecordData(required, {}, { mode: 'update' })).toEqual({ ok: true, value: {} });
      for (const mode of ['create', 'update'] as const) {
        const data = (value: unknown) => (mode === 'create' ? { title: 't', value } : { value });
        expect(errorList(validateRecordData(required, data(null), { mode }))).toEqual(['value:required']);
        for (const [form, value] of [['', ''], ['[]', []]] as const) {
          expect(errorList(validateRecordData(required, data(value), { mode }))).toEqual([form === emptyForm ? 'value:required' : 'value:invalid_type']);
        }
      }
    });

    it('says how to clear a value when an empty form of another type is sent', () => {
      const result = validateRecordData([field('won', 'BOOLEAN')], { won: [] }, { mode: 'update' });
      expect(result).toEqual({
        ok: false,
        errors: [{ field: 'won', code: 'invalid_type', message: 'An empty array is not a BOOLEAN value; send null to clear the field.' }],
      });
    });

    it('isEmptyFieldValue applies the same rule', () => {
      for (const [type, config, valid, emptyForm] of BY_TYPE) {
        const definition = field('value', type, config);
        expect(isEmptyFieldValue(definition, null)).toBe(true);
        expect(isEmptyFieldValue(definition, undefined)).toBe(true);
        expect(isEmptyFieldValue(definition, valid)).toBe(false);
        expect(isEmptyFieldValue(definition, '')).toBe(emptyForm === '');
        expect(isEmptyFieldValue(definition, [])).toBe(emptyForm === '[]');
      }
    });
  });

  describe('text PostgreSQL cannot store', () => {
    const UNSTORABLE = ['a\u0000b', '\u0000', 'lone high \ud800', '\udc00 lone low', 'reversed \udc00\ud800', 'cut pair \ud83d'];
    const FILES = [field('doc', 'FILE'), field('files', 'ATTACHMENTS'), field('notes', 'LONG_TEXT'), field('body', 'RICH_TEXT'), field('site', 'URL')];
    const file = (name: string) => ({ url: 'https://example.com/a', name });

    it.each(UNSTORABLE)('refuses %j as invalid_format naming the field, in every string-carrying place', (text) => {
      const data = {
        title: `t${text}`,
        notes: text,
        body: `<p>${text}</p>`,
        site: `https://example.com/${text}`,
        doc: file(`${text}.pdf`),
        files: [file('ok.pdf'), file(text)],
      };
      const result = validateRecordData(FILES, data, { mode: 'create' });
      expect(errorList(result)).toEqual([
        'title:invalid_format',
        'notes:invalid_format',
        'body:invalid_format',
        'site:invalid_format',
        'doc.name:invalid_format',
        'files[1].name:invalid_format',
      ]);
    });

    it('names the reason', () => {
      const messages = (text: string) => {
        const result = validateRecordData([], { title: text }, { mode: 'create' });
        return result.ok ? [] : result.errors.map((error) => error.message);
      };
      expect(messages('a\u0000')).toEqual([expect.stringContaining('U+0000')]);
      expect(messages('a\ud800')).toEqual([expect.stringContaining('lone surrogate')]);
    });

    it('accepts well-formed text beyond the BMP and lookalikes of NUL', () => {
      const data = { title: '😀 \ud83d\ude00 \\u0000 ␀', notes: '𝄞'.repeat(10) };
      expect(validateRecordData(FILES, data, { mode: 'create' })).toEqual({ ok: true, value: data });
    });
  });

  it('reports unknown, archived and formula keys and every invalid value at once', () => {
    const result = validateRecordData(
      FIELDS,
      { title: 'x'.repeat(101), price: -1, total: 20, legacy: 'old', colour: 'red', tags: ['green'], starts_at: 'tomorrow' },
      { mode: 'update' },
    );
    expect(errorList(result)).toEqual([
      'title:too_long',
      'price:out_of_range',
      'total:read_only',
      'legacy:unknown_field',
      'colour:unknown_field',
      'tags[0]:invalid_option',
      'starts_at:invalid_format',
    ]);
    // Archived fields are indistinguishable from unknown ones.
    if (!result.ok) expect(result.errors[3]?.message).toBe('Unknown field "legacy".');
  });

  it('rejects formula keys even when null', () => {
    expect(errorList(validateRecordData(FIELDS, { ...VALID_CREATE, total: null }, { mode: 'create' }))).toEqual(['total:read_only']);
  });

  it('rejects data that is not a plain object', () => {
    for (const data of [null, undefined, 'title', 42, [], [VALID_CREATE], new Date(), new Map(), Symbol('x')]) {
      expect(errorList(validateRecordData(FIELDS, data, { mode: 'create' }))).toEqual(['$:invalid_type']);
    }
  });

  it('handles prototype-related keys without pollution', () => {
    const data = JSON.parse('{"title":"t","price":1,"labels":["x"],"__proto__":{"polluted":true},"constructor":1,"toString":2}') as unknown;
    expect(errorList(validateRecordData(FIELDS, data, { mode: 'create' }))).toEqual([
      '__proto__:unknown_field',
      'constructor:unknown_field',
      'toString:unknown_field',
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const result = validateRecordData(FIELDS, { ...VALID_CREATE }, { mode: 'create' });
    expect(result.ok && Object.getPrototypeOf(result.value)).toBe(Object.prototype);
  });

  it('does not read inherited properties as values', () => {
    const inherited = Object.create({ title: 'from prototype', price: 1, labels: ['x'] }) as object;
    expect(errorList(validateRecordData(FIELDS, Object.assign(Object.create(null), {}), { mode: 'create' }))).toEqual([
      'title:required',
      'price:required',
      'labels:required',
    ]);
    expect(errorList(validateRecordData(FIELDS, inherited, { mode: 'create' }))).toEqual(['$:invalid_type']);
  });

  it('copes with symbols, throwing getters and deep nesting', () => {
    const symbolKey = Symbol('hidden');
    expect(errorList(validateRecordData(FIELDS, { ...VALID_CREATE, [symbolKey]: 1 }, { mode: 'create' }))).toEqual(['Symbol(hidden):unknown_field']);
    expect(errorList(validateRecordData(FIELDS, { ...VALID_CREATE, notes: Symbol('x') }, { mode: 'create' }))).toEqual(['notes:invalid_type']);

    const hostile = { ...VALID_CREATE };
    Object.defineProperty(hostile, 'notes', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(errorList(validateRecordData(FIELDS, hostile, { mode: 'create' }))).toEqual(['$:invalid_type']);

    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { url: deep };
    expect(errorList(validateRecordData([field('file', 'FILE')], { title: 't', file: deep }, { mode: 'create' }))).toEqual([
      'file.url:invalid_type',
      'file.name:required',
    ]);
  });

  it('ignores malformed field definitions instead of crashing', () => {
    const fields = [null, 42, { key: 'Bad Key', type: 'TEXT' }, { key: 'x', type: 'NOPE' }, field('ok', 'TEXT')] as unknown as FieldDefinition[];
    expect(errorList(validateRecordData(fields, { title: 't', ok: 'yes', x: 1 }, { mode: 'create' }))).toEqual(['x:unknown_field']);
    expect(validateRecordData('nonsense' as unknown as FieldDefinition[], { title: 't' }, { mode: 'create' }).ok).toBe(true);
  });

  it('never throws, whatever the data', () => {
    const keys = fc.constantFrom('title', 'price', 'notes', 'tags', 'labels', 'starts_at', 'contact', 'total', 'legacy', '__proto__', 'constructor', 'x');
    fc.assert(
      fc.property(
        fc.anything({
          key: fc.oneof(keys, fc.string()),
          withBigInt: true,
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withNullPrototype: true,
          withObjectString: true,
          withSparseArray: true,
          withTypedArray: true,
          withUnicodeString: true,
        }),
        fc.constantFrom<'create' | 'update'>('create', 'update'),
        (data, mode) => {
          const result = validateRecordData(FIELDS, data, { mode });
          if (result.ok) expect(typeof result.value).toBe('object');
          else expect(result.errors.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('accepts generated valid patches and returns exactly their keys', () => {
    const patch = fc.record(
      {
        notes: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
        tags: fc.subarray(['red', 'blue']),
        price: fc.integer({ min: 0, max: 1000 }),
        contact: fc.constantFrom('a@example.com', null),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(patch, (data) => {
        const result = validateRecordData(FIELDS, data, { mode: 'update' });
        expect(result.ok).toBe(true);
        if (result.ok) expect(Object.keys(result.value).sort()).toEqual(Object.keys(data).sort());
      }),
    );
  });
});

describe('compileRecordValidator', () => {
  const validate = compileRecordValidator(FIELDS);
  const writes: Array<[unknown, 'create' | 'update']> = [
    [VALID_CREATE, 'create'],
    [{}, 'create'],
    [{ ...VALID_CREATE, price: -1, tags: ['green'], legacy: 'x', total: 3, unknown: 1 }, 'create'],
    [{ notes: null, contact: 'not an email' }, 'update'],
    [{ title: '' }, 'update'],
    [[], 'create'],
    ['text', 'update'],
  ];

  it.each(writes)('answers exactly as validateRecordData for %j (%s)', (data, mode) => {
    expect(validate(data, { mode })).toEqual(validateRecordData(FIELDS, data, { mode }));
  });

  it('keeps answering the same once compiled, for any record', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('title', 'price', 'tags', 'labels', 'contact', 'nope'), fc.jsonValue()), fc.constantFrom<'create' | 'update'>('create', 'update'), (data, mode) => {
        expect(validate(data, { mode })).toEqual(validateRecordData(FIELDS, data, { mode }));
      }),
    );
  });

  it('reports a field whose configuration does not compile on that field, as before', () => {
    const broken = [field('title', 'TEXT'), field('level', 'NUMBER', { min: 'low' })];
    expect(errorList(compileRecordValidator(broken)({ title: 'x', level: 3 }, { mode: 'create' }))).toEqual(['level:invalid_format']);
  });
});
