import fc from 'fast-check';
import type { FieldDefinition } from '../core/field-definition';
import type { FieldType } from '../core/field-types';
import { FIELD_TYPES } from '../core/field-types';
import type { FieldErrorCode } from '../core/result';
import { validateFieldValue } from './validate-field';

const field = (type: FieldType, config: Record<string, unknown> = {}, key = 'subject'): FieldDefinition => ({
  key,
  type,
  config,
  required: false,
});

const LINE_BREAK = /[\n\v\f\r\u0085\u2028\u2029]/;
const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const httpUrl = fc
  .webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
  .filter((url) => url.length <= 2048);
const nonString = fc.oneof(fc.integer(), fc.boolean(), fc.object(), fc.array(fc.string()));

/** Allow-listed HTML generated from a small grammar. */
const richHtml = fc.letrec<{ inline: string; block: string; document: string }>((tie) => ({
  inline: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 12 }).map(escapeHtml),
    fc.constant('<br>'),
    fc.tuple(fc.constantFrom('strong', 'em', 'u', 's', 'code'), fc.array(tie('inline'), { maxLength: 3 })).map(
      ([tag, children]) => `<${tag}>${children.join('')}</${tag}>`,
    ),
    fc.tuple(fc.oneof(httpUrl, fc.emailAddress().map((address) => `mailto:${address}`)), tie('inline')).map(
      ([href, text]) => `<a href="${escapeHtml(href)}">${text}</a>`,
    ),
  ),
  block: fc.oneof(
    fc.tuple(fc.constantFrom('p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre'), fc.array(tie('inline'), { maxLength: 3 })).map(
      ([tag, children]) => `<${tag}>${children.join('')}</${tag}>`,
    ),
    fc.tuple(fc.constantFrom('ul', 'ol'), fc.array(tie('inline'), { minLength: 1, maxLength: 3 })).map(
      ([tag, items]) => `<${tag}>${items.map((item) => `<li>${item}</li>`).join('')}</${tag}>`,
    ),
  ),
  document: fc.array(tie('block'), { maxLength: 4 }).map((blocks) => blocks.join('\n')),
})).document;

const fileObject = fc.record(
  {
    url: httpUrl,
    name: fc.string({ minLength: 1, maxLength: 40 }),
    mimeType: fc.constantFrom('image/png', 'application/pdf', 'text/plain'),
    size: fc.nat({ max: 10_000 }),
  },
  { requiredKeys: ['url', 'name'] },
);

interface TypeCase {
  readonly field: FieldDefinition;
  readonly valid: fc.Arbitrary<unknown>;
  /** Expected normalisation, when it is not the identity. */
  readonly normalise?: (value: never) => unknown;
  readonly invalid: ReadonlyArray<readonly [FieldErrorCode, fc.Arbitrary<unknown>]>;
}

const SELECT_OPTIONS = [{ value: 'open' }, { value: 'closed' }, { value: 'archived' }];
const dateArbitrary = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });

const TYPE_CASES: Readonly<Record<FieldType, TypeCase>> = {
  TEXT: {
    field: field('TEXT', { maxLength: 20 }),
    valid: fc.string({ unit: 'binary', maxLength: 20 }).filter((text) => !LINE_BREAK.test(text) && !text.includes('\u0000')),
    invalid: [
      ['invalid_type', nonString],
      ['too_long', fc.string({ unit: 'binary', minLength: 21, maxLength: 40 }).filter((text) => !LINE_BREAK.test(text))],
      ['invalid_format', fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom('\n', '\r', '\u2028'), fc.string({ maxLength: 5 })).map((parts) => parts.join(''))],
    ],
  },
  LONG_TEXT: {
    field: field('LONG_TEXT', { maxLength: 50 }),
    valid: fc.string({ unit: 'binary', maxLength: 50 }).filter((text) => !text.includes('\u0000')),
    invalid: [
      ['invalid_type', nonString],
      ['too_long', fc.string({ unit: 'binary', minLength: 51, maxLength: 80 })],
    ],
  },
  RICH_TEXT: {
    field: field('RICH_TEXT'),
    valid: richHtml,
    invalid: [
      ['invalid_type', nonString],
      [
        'invalid_format',
        fc
          .tuple(
            richHtml,
            fc.constantFrom(
              '<script>alert(1)</script>',
              '<p onclick="alert(1)">x</p>',
              '<p style="color:red">x</p>',
              '<img src="https://example.com/a.png">',
              '<a href="javascript:alert(1)">x</a>',
              '<a href="data:text/html,x">x</a>',
              '<!-- hidden -->',
              '<div>x</div>',
              '1 < 2',
            ),
          )
          .map(([html, bad]) => html + bad),
      ],
    ],
  },
  NUMBER: {
    field: field('NUMBER', { min: -1000, max: 1000, precision: 2 }),
    valid: fc.integer({ min: -100_000, max: 100_000 }).map((cents) => cents / 100),
    invalid: [
      ['invalid_type', fc.oneof(fc.string(), fc.constant(Number.NaN), fc.constant(Infinity), fc.boolean())],
      ['out_of_range', fc.oneof(fc.integer({ min: 1001 }), fc.integer({ max: -1001 }))],
      ['invalid_format', fc.integer({ min: -999_999, max: 999_999 }).filter((n) => n % 10 !== 0).map((n) => n / 1000)],
    ],
  },
  BOOLEAN: {
    field: field('BOOLEAN'),
    valid: fc.boolean(),
    invalid: [['invalid_type', fc.oneof(fc.constantFrom('true', 'false', 0, 1), fc.string())]],
  },
  DATE: {
    field: field('DATE'),
    valid: dateArbitrary.map((date) => date.toISOString().slice(0, 10)),
    invalid: [
      ['invalid_type', fc.oneof(fc.integer(), dateArbitrary)],
      [
        'invalid_format',
        fc.oneof(
          fc.integer({ min: 1, max: 9999 }).map((year) => `${String(year).padStart(4, '0')}-02-30`),
          fc.integer({ min: 1, max: 9999 }).map((year) => `${String(year).padStart(4, '0')}-13-01`),
          fc.constantFrom('2023-02-29', '2024-1-1', '01/02/2024', '2024-01-01T00:00:00Z'),
        ),
      ],
    ],
  },
  DATETIME: {
    field: field('DATETIME'),
    valid: fc.tuple(dateArbitrary, fc.constantFrom('Z', '+00:00')).map(([date, zone]) => date.toISOString().slice(0, 23) + zone),
    normalise: (value: string) => new Date(value).toISOString(),
    invalid: [
      ['invalid_type', fc.oneof(fc.integer(), fc.boolean())],
      ['invalid_format', dateArbitrary.map((date) => date.toISOString().slice(0, 19))],
    ],
  },
  SELECT: {
    field: field('SELECT', { options: SELECT_OPTIONS }),
    valid: fc.constantFrom('open', 'closed', 'archived'),
    invalid: [
      ['invalid_type', fc.oneof(fc.integer(), fc.constant(['open']))],
      ['invalid_option', fc.string().filter((text) => !['open', 'closed', 'archived', ''].includes(text))],
    ],
  },
  MULTI_SELECT: {
    field: field('MULTI_SELECT', { options: SELECT_OPTIONS, maxSelected: 2 }),
    valid: fc.uniqueArray(fc.constantFrom('open', 'closed', 'archived'), { maxLength: 2 }),
    invalid: [
      ['invalid_type', fc.oneof(fc.constant('open'), fc.constant([1]))],
      ['too_long', fc.constant(['open', 'closed', 'archived'])],
      ['invalid_option', fc.string().filter((text) => !['open', 'closed', 'archived'].includes(text)).map((text) => [text])],
      ['invalid_format', fc.constantFrom(['open', 'open'], ['closed', 'closed'])],
    ],
  },
  RELATION: {
    field: field('RELATION', { targetModel: 'customers' }),
    valid: fc.uuid().chain((id) => fc.constantFrom(id, id.toUpperCase())),
    normalise: (value: string) => value.toLowerCase(),
    invalid: [
      ['invalid_type', fc.oneof(fc.integer(), fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 2 }))],
      ['invalid_format', fc.string({ minLength: 1 }).filter((text) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text))],
    ],
  },
  URL: {
    field: field('URL'),
    valid: httpUrl,
    invalid: [
      ['invalid_type', nonString],
      ['too_long', fc.constant(`https://example.com/${'a'.repeat(2048)}`)],
      ['invalid_format', fc.constantFrom('ftp://example.com', 'javascript:alert(1)', '/relative', 'https://user:pw@example.com', 'http://exa mple.com')],
    ],
  },
  EMAIL: {
    field: field('EMAIL'),
    valid: fc.emailAddress().filter((address) => address.length <= 254),
    normalise: (value: string) => value.slice(0, value.lastIndexOf('@')) + value.slice(value.lastIndexOf('@')).toLowerCase(),
    invalid: [
      ['invalid_type', nonString],
      ['too_long', fc.constant(`${'a'.repeat(250)}@example.com`)],
      ['invalid_format', fc.constantFrom('plain', 'a@b', '@example.com', 'a b@example.com', 'a@example..com')],
    ],
  },
  FORMULA: {
    field: field('FORMULA', { expression: '1 + 1', resultType: 'NUMBER' }),
    valid: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    invalid: [['invalid_type', fc.oneof(fc.string(), fc.boolean(), fc.constant(Infinity))]],
  },
  FILE: {
    field: field('FILE'),
    valid: fileObject,
    invalid: [
      ['invalid_type', fc.oneof(fc.string(), fc.array(fileObject, { minLength: 1, maxLength: 2 }))],
      ['required', fileObject.map(({ url: _url, ...rest }) => rest)],
      ['invalid_format', fileObject.map((file) => ({ ...file, owner: 'me' }))],
    ],
  },
  ATTACHMENTS: {
    field: field('ATTACHMENTS', { maxFiles: 3 }),
    valid: fc.array(fileObject, { maxLength: 3 }),
    invalid: [
      ['invalid_type', fc.oneof(fileObject, fc.constant([42]))],
      ['too_long', fc.array(fileObject, { minLength: 4, maxLength: 6 })],
    ],
  },
};

describe('validateFieldValue', () => {
  it('covers every field type', () => {
    expect(Object.keys(TYPE_CASES).sort()).toEqual([...FIELD_TYPES].sort());
  });

  it('accepts null and undefined as empty for every type', () => {
    for (const { field: definition } of Object.values(TYPE_CASES)) {
      expect(validateFieldValue(definition, null)).toEqual({ ok: true, value: null });
      expect(validateFieldValue(definition, undefined)).toEqual({ ok: true, value: null });
    }
  });

  describe.each(FIELD_TYPES.map((type) => [type, TYPE_CASES[type]] as const))('%s', (_type, typeCase) => {
    it('accepts generated valid values, and the normalised value is stable', () => {
      fc.assert(
        fc.property(typeCase.valid, (value) => {
          const first = validateFieldValue(typeCase.field, value);
          expect(first).toEqual({ ok: true, value: typeCase.normalise ? typeCase.normalise(value as never) : value });
          if (first.ok) expect(validateFieldValue(typeCase.field, first.value)).toEqual(first);
        }),
        { numRuns: 200 },
      );
    });

    it.each(typeCase.invalid.map(([code, arbitrary]) => [code, arbitrary] as const))('rejects invalid values with %s', (code, arbitrary) => {
      fc.assert(
        fc.property(arbitrary, (value) => {
          const result = validateFieldValue(typeCase.field, value);
          expect(result.ok).toBe(false);
          if (!result.ok) {
            expect(result.errors.map((error) => error.code)).toContain(code);
            for (const error of result.errors) expect(error.field.startsWith('subject')).toBe(true);
          }
        }),
        { numRuns: 100 },
      );
    });
  });

  it('reports paths inside structured values', () => {
    const attachments = field('ATTACHMENTS', { maxFiles: 5 });
    const result = validateFieldValue(attachments, [
      { url: 'https://example.com/a.pdf', name: 'a.pdf' },
      { url: 'ftp://example.com/b', name: '' },
    ]);
    expect(result).toEqual({
      ok: false,
      errors: [
        { field: 'subject[1].url', code: 'invalid_format', message: expect.any(String) },
        { field: 'subject[1].name', code: 'required', message: expect.any(String) },
      ],
    });
  });

  it('enforces FILE MIME-type allow-lists and size limits', () => {
    const image = field('FILE', { allowedMimeTypes: ['image/*'], maxSizeBytes: 1000 });
    const base = { url: 'https://cdn.example.com/cat.png', name: 'cat.png' };
    expect(validateFieldValue(image, { ...base, mimeType: 'IMAGE/PNG', size: 10 })).toEqual({
      ok: true,
      value: { ...base, mimeType: 'image/png', size: 10 },
    });
    const codes = (value: unknown) => {
      const result = validateFieldValue(image, value);
      return result.ok ? [] : result.errors.map((error) => `${error.field}:${error.code}`);
    };
    expect(codes({ ...base, mimeType: 'application/pdf', size: 10 })).toEqual(['subject.mimeType:invalid_option']);
    expect(codes({ ...base, mimeType: 'image/png', size: 1001 })).toEqual(['subject.size:out_of_range']);
    expect(codes({ ...base, mimeType: 'image/png', size: -1 })).toEqual(['subject.size:invalid_type']);
    expect(codes(base)).toEqual(['subject.mimeType:required', 'subject.size:required']);
  });

  it('normalises relation id arrays and rejects duplicates ignoring case', () => {
    const relation = field('RELATION', { targetModel: 'tags', multiple: true });
    const id = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
    expect(validateFieldValue(relation, [id.toUpperCase()])).toEqual({ ok: true, value: [id] });
    expect(validateFieldValue(relation, [id, id.toUpperCase()])).toMatchObject({ ok: false, errors: [{ field: 'subject[1]', code: 'invalid_format' }] });
    expect(validateFieldValue(relation, id)).toMatchObject({ ok: false, errors: [{ code: 'invalid_type' }] });
  });

  it('normalises DATETIME offsets to UTC and -0 to 0', () => {
    expect(validateFieldValue(field('DATETIME'), '2024-01-01T10:00:00+02:00')).toEqual({ ok: true, value: '2024-01-01T08:00:00.000Z' });
    expect(validateFieldValue(field('NUMBER'), -0)).toEqual({ ok: true, value: 0 });
  });

  it('refuses text for a NUMBER saying how a number is written', () => {
    expect(validateFieldValue(field('NUMBER'), '1,200.50')).toMatchObject({
      ok: false,
      errors: [{ code: 'invalid_type', message: 'Must be a number, not text: use digits and a decimal point, e.g. 1200.50.' }],
    });
  });

  it('treats precision 0 as whole numbers only', () => {
    const integer = field('NUMBER', { precision: 0 });
    expect(validateFieldValue(integer, 42)).toEqual({ ok: true, value: 42 });
    expect(validateFieldValue(integer, 4.2)).toMatchObject({ ok: false, errors: [{ code: 'invalid_format' }] });
  });

  it('reports an invalid stored configuration on the field instead of throwing', () => {
    const broken = { key: 'status', type: 'SELECT', config: { options: 'nope' }, required: false } as FieldDefinition;
    expect(validateFieldValue(broken, 'x')).toMatchObject({ ok: false, errors: [{ field: 'status', code: 'invalid_format' }] });
  });

  it('never throws, whatever the value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELD_TYPES), fc.anything({ withBoxedValues: true, withNullPrototype: true, withMap: true, withSet: true, withBigInt: true, withDate: true }), (type, value) => {
        const result = validateFieldValue(TYPE_CASES[type].field, value);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });
});
