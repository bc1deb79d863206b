import { Type } from '@sinclair/typebox';
import { compileSchema, schemaErrorDetails } from './schema';

/** Every string and property name of an input refuses text PostgreSQL cannot store, whatever the schema says. */
describe('compileSchema: text PostgreSQL cannot store', () => {
  const schema = Type.Object(
    {
      name: Type.String({ maxLength: 200 }),
      email: Type.Optional(Type.String({ format: 'email' })),
      tags: Type.Optional(Type.Array(Type.String())),
      nickname: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      labels: Type.Optional(Type.Record(Type.String(), Type.String())),
      nested: Type.Optional(Type.Object({ deep: Type.Array(Type.Object({ note: Type.String() })) })),
      free: Type.Optional(Type.Unknown()),
      default: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  );
  const validate = compileSchema(schema);
  const details = (input: unknown) => (validate(input) ? [] : schemaErrorDetails(validate.errors).map(({ field, code }) => `${field}:${code}`));

  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone high surrogate', 'a\ud800'],
    ['a lone low surrogate', '\udc00b'],
  ])('refuses %s in every string, naming each field', (_name, text) => {
    expect(
      details({
        name: text,
        tags: ['ok', text],
        labels: { fine: text },
        nested: { deep: [{ note: 'ok' }, { note: text }] },
        default: text,
      }),
    ).toEqual([
      'name:invalid_format',
      'tags.1:invalid_format',
      'labels.fine:invalid_format',
      'nested.deep.1.note:invalid_format',
      'default:invalid_format',
    ]);
    // The null branch of a nullable string does not add "must be null".
    expect(details({ name: 'x', nickname: text })).toEqual(['nickname:invalid_format']);
  });

  it('refuses such property names, naming the key', () => {
    expect(details({ name: 'x', labels: { 'a\u0000': 'v', ok: 'v', '\ud800': 'v' } })).toEqual(['labels.a\u0000:invalid_format', 'labels.\ud800:invalid_format']);
  });

  it('says why', () => {
    expect(validate({ name: 'a\u0000' })).toBe(false);
    expect(schemaErrorDetails(validate.errors)).toEqual([{ field: 'name', code: 'invalid_format', message: 'must not contain the character U+0000 (NUL)' }]);
    expect(validate({ name: '\ud800' })).toBe(false);
    expect(schemaErrorDetails(validate.errors)[0]?.message).toMatch(/lone surrogate/);
  });

  it('accepts well-formed text, emoji and escaped lookalikes', () => {
    expect(details({ name: '😀 \\u0000 ␀', tags: ['\ud83d\ude00'], labels: { '😀': 'é' }, nested: { deep: [] } })).toEqual([]);
  });

  it('leaves untyped values to the code that interprets them', () => {
    expect(details({ name: 'x', free: { 'a\u0000': 'b\u0000' } })).toEqual([]);
  });

  it('does not change the schema it was given (the OpenAPI document shows it)', () => {
    const original = Type.Object({ name: Type.String() });
    const before = JSON.stringify(original);
    compileSchema(original);
    expect(JSON.stringify(original)).toBe(before);
  });

  it('marks data keywords as data, never as schemas', () => {
    const withDefault = compileSchema(Type.Object({ shape: Type.Optional(Type.Unknown({ default: { type: 'string' } })) }));
    const input: Record<string, unknown> = {};
    expect(withDefault(input)).toBe(true);
    expect(input['shape']).toEqual({ type: 'string' });
  });

  it('keeps the type errors of a union when no branch fits the type', () => {
    expect(details({ name: 'x', nickname: 5 })).toEqual(['nickname:invalid_type', 'nickname:invalid_type']);
  });
});
