import fc from 'fast-check';
import { FIELD_TYPES } from '../core/field-types';
import type { FieldType } from '../core/field-types';
import type { FieldErrorCode, Result } from '../core/result';
import { validateFieldConfig } from './validate-field';

function errorsOf(result: Result<unknown>): Array<{ field: string; code: FieldErrorCode }> {
  return result.ok ? [] : result.errors.map(({ field, code }) => ({ field, code }));
}

describe('validateFieldConfig', () => {
  it.each<[FieldType, Record<string, unknown>]>([
    ['TEXT', { maxLength: 1000 }],
    ['LONG_TEXT', { maxLength: 100_000 }],
    ['RICH_TEXT', { maxLength: 100_000 }],
    ['NUMBER', {}],
    ['BOOLEAN', {}],
    ['DATE', {}],
    ['DATETIME', {}],
    ['URL', {}],
    ['EMAIL', {}],
    ['FILE', {}],
    ['ATTACHMENTS', { maxFiles: 10 }],
  ])('fills the defaults of %s', (type, expected) => {
    expect(validateFieldConfig(type, {})).toEqual({ ok: true, value: expected });
    expect(validateFieldConfig(type, undefined)).toEqual({ ok: true, value: expected });
    expect(validateFieldConfig(type, null)).toEqual({ ok: true, value: expected });
  });

  it('refuses configurations holding text PostgreSQL cannot store', () => {
    expect(errorsOf(validateFieldConfig('SELECT', { options: [{ value: 'a\ud800' }] }))).toEqual([
      { field: 'config.options[0].value', code: 'invalid_format' },
    ]);
    expect(errorsOf(validateFieldConfig('MULTI_SELECT', { options: [{ value: 'a', label: 'x\udfff' }] }))).toEqual([
      { field: 'config.options[0].label', code: 'invalid_format' },
    ]);
    expect(errorsOf(validateFieldConfig('SELECT', { options: [{ value: 'a\u0000' }] }))).toEqual([
      { field: 'config.options[0].value', code: 'invalid_format' },
    ]);
    expect(errorsOf(validateFieldConfig('FORMULA', { expression: '"\\u0000"', resultType: 'TEXT' }))).toEqual([
      { field: 'config.expression', code: 'invalid_format' },
    ]);
    expect(validateFieldConfig('SELECT', { options: [{ value: '😀', label: 'Smile 😀' }] }).ok).toBe(true);
  });

  it('rejects unknown keys for every type', () => {
    for (const type of FIELD_TYPES) {
      const result = validateFieldConfig(type, { colour: 'red' });
      expect(errorsOf(result)).toContainEqual({ field: 'config.colour', code: 'unknown_field' });
    }
  });

  it('rejects configurations that are not objects', () => {
    for (const config of [[], 'x', 42, true]) {
      expect(errorsOf(validateFieldConfig('TEXT', config))).toEqual([{ field: 'config', code: 'invalid_type' }]);
    }
  });

  it('rejects an unknown field type', () => {
    expect(errorsOf(validateFieldConfig('COLOR' as FieldType, {}))).toEqual([{ field: 'type', code: 'invalid_option' }]);
  });

  it('bounds text lengths by the type ceiling', () => {
    expect(validateFieldConfig('TEXT', { maxLength: 200 })).toEqual({ ok: true, value: { maxLength: 200 } });
    expect(errorsOf(validateFieldConfig('TEXT', { maxLength: 1001 }))).toEqual([{ field: 'config.maxLength', code: 'out_of_range' }]);
    expect(errorsOf(validateFieldConfig('TEXT', { maxLength: 0 }))).toEqual([{ field: 'config.maxLength', code: 'out_of_range' }]);
    expect(errorsOf(validateFieldConfig('LONG_TEXT', { maxLength: 1.5 }))).toEqual([{ field: 'config.maxLength', code: 'invalid_type' }]);
  });

  it('checks NUMBER bounds and precision', () => {
    expect(validateFieldConfig('NUMBER', { min: -1, max: 1, precision: 2 })).toEqual({ ok: true, value: { min: -1, max: 1, precision: 2 } });
    expect(errorsOf(validateFieldConfig('NUMBER', { min: 5, max: 1 }))).toEqual([{ field: 'config.max', code: 'out_of_range' }]);
    expect(errorsOf(validateFieldConfig('NUMBER', { precision: 16 }))).toEqual([{ field: 'config.precision', code: 'out_of_range' }]);
    expect(errorsOf(validateFieldConfig('NUMBER', { min: Infinity, max: '3' }))).toEqual([
      { field: 'config.min', code: 'invalid_type' },
      { field: 'config.max', code: 'invalid_type' },
    ]);
  });

  it('completes SELECT options and enforces unique, non-empty values', () => {
    expect(validateFieldConfig('SELECT', { options: [{ value: 'open' }, { value: 'done', label: 'Done', color: '#00ff00' }] })).toEqual({
      ok: true,
      value: { options: [{ value: 'open', label: 'open' }, { value: 'done', label: 'Done', color: '#00ff00' }] },
    });
    expect(errorsOf(validateFieldConfig('SELECT', {}))).toEqual([{ field: 'config.options', code: 'required' }]);
    expect(errorsOf(validateFieldConfig('SELECT', { options: [] }))).toEqual([{ field: 'config.options', code: 'out_of_range' }]);
    expect(errorsOf(validateFieldConfig('SELECT', { options: [{ value: 'a' }, { value: 'a' }] }))).toEqual([
      { field: 'config.options[1].value', code: 'invalid_option' },
    ]);
    expect(errorsOf(validateFieldConfig('SELECT', { options: [{ value: '' }] }))).toEqual([
      { field: 'config.options[0].value', code: 'invalid_format' },
    ]);
    expect(errorsOf(validateFieldConfig('MULTI_SELECT', { options: [{ value: 'a', icon: 'x' }], maxSelected: 0 }))).toEqual([
      { field: 'config.options[0].icon', code: 'unknown_field' },
      { field: 'config.maxSelected', code: 'out_of_range' },
    ]);
  });

  it('requires a RELATION target model key and defaults multiple to false', () => {
    expect(validateFieldConfig('RELATION', { targetModel: 'customers' })).toEqual({ ok: true, value: { targetModel: 'customers', multiple: false } });
    expect(errorsOf(validateFieldConfig('RELATION', {}))).toEqual([{ field: 'config.targetModel', code: 'required' }]);
    expect(errorsOf(validateFieldConfig('RELATION', { targetModel: 'Bad Model' }))).toEqual([{ field: 'config.targetModel', code: 'invalid_format' }]);
    expect(errorsOf(validateFieldConfig('RELATION', { targetModel: 'x', multiple: 'yes' }))).toEqual([{ field: 'config.multiple', code: 'invalid_type' }]);
  });

  it('parses FORMULA expressions and checks the result type', () => {
    expect(validateFieldConfig('FORMULA', { expression: '{a} + 1', resultType: 'NUMBER' })).toEqual({
      ok: true,
      value: { expression: '{a} + 1', resultType: 'NUMBER' },
    });
    expect(errorsOf(validateFieldConfig('FORMULA', { expression: '{a} +', resultType: 'NUMBER' }))).toEqual([
      { field: 'config.expression', code: 'invalid_format' },
    ]);
    expect(errorsOf(validateFieldConfig('FORMULA', { expression: '1', resultType: 'DATETIME' }))).toEqual([
      { field: 'config.resultType', code: 'invalid_option' },
    ]);
    expect(errorsOf(validateFieldConfig('FORMULA', { expression: '1'.repeat(1001), resultType: 'NUMBER' }))).toEqual([
      { field: 'config.expression', code: 'too_long' },
    ]);
    expect(errorsOf(validateFieldConfig('FORMULA', {}))).toEqual([
      { field: 'config.expression', code: 'required' },
      { field: 'config.resultType', code: 'required' },
    ]);
  });

  it('normalises FILE and ATTACHMENTS limits', () => {
    expect(validateFieldConfig('ATTACHMENTS', { allowedMimeTypes: ['IMAGE/*', 'application/pdf'], maxSizeBytes: 1024, maxFiles: 3 })).toEqual({
      ok: true,
      value: { allowedMimeTypes: ['image/*', 'application/pdf'], maxSizeBytes: 1024, maxFiles: 3 },
    });
    expect(errorsOf(validateFieldConfig('FILE', { allowedMimeTypes: ['images'] }))).toEqual([
      { field: 'config.allowedMimeTypes[0]', code: 'invalid_format' },
    ]);
    expect(errorsOf(validateFieldConfig('FILE', { allowedMimeTypes: ['image/png', 'image/png'] }))).toEqual([
      { field: 'config.allowedMimeTypes', code: 'invalid_option' },
    ]);
    expect(errorsOf(validateFieldConfig('ATTACHMENTS', { maxFiles: 101 }))).toEqual([{ field: 'config.maxFiles', code: 'out_of_range' }]);
  });

  describe('DATETIME reminders', () => {
    it('keeps up to five distinct minute offsets, ascending, from 0 (at the time) to 28 days', () => {
      expect(validateFieldConfig('DATETIME', { reminders: [60, 0, 15, 1440, 40320] })).toEqual({
        ok: true,
        value: { reminders: [0, 15, 60, 1440, 40320] },
      });
      expect(validateFieldConfig('DATETIME', { reminders: [30] })).toEqual({ ok: true, value: { reminders: [30] } });
    });

    it('reads an empty list, or null, as no reminders', () => {
      expect(validateFieldConfig('DATETIME', { reminders: [] })).toEqual({ ok: true, value: {} });
      expect(validateFieldConfig('DATETIME', { reminders: null })).toEqual({ ok: true, value: {} });
    });

    it('refuses more than five, repeats, and offsets that are not whole minutes in range', () => {
      expect(errorsOf(validateFieldConfig('DATETIME', { reminders: [1, 2, 3, 4, 5, 6] }))).toEqual([
        { field: 'config.reminders', code: 'too_long' },
      ]);
      expect(errorsOf(validateFieldConfig('DATETIME', { reminders: [15, 15] }))).toEqual([
        { field: 'config.reminders', code: 'invalid_option' },
      ]);
      expect(errorsOf(validateFieldConfig('DATETIME', { reminders: [-1, 40321, 1.5, '15', null] }))).toEqual([
        { field: 'config.reminders[0]', code: 'out_of_range' },
        { field: 'config.reminders[1]', code: 'out_of_range' },
        { field: 'config.reminders[2]', code: 'invalid_type' },
        { field: 'config.reminders[3]', code: 'invalid_type' },
        { field: 'config.reminders[4]', code: 'invalid_type' },
      ]);
      expect(errorsOf(validateFieldConfig('DATETIME', { reminders: 15 }))).toEqual([{ field: 'config.reminders', code: 'invalid_type' }]);
      expect(errorsOf(validateFieldConfig('DATETIME', { reminders: { 0: 15 } }))).toEqual([{ field: 'config.reminders', code: 'invalid_type' }]);
    });

    it('says what is wrong in words a caller can act on', () => {
      const result = validateFieldConfig('DATETIME', { reminders: [50000] });
      expect(result.ok ? [] : result.errors.map((error) => error.message)).toEqual(['config.reminders[0] must be between 0 and 40320.']);
    });

    it('belongs to DATETIME only', () => {
      expect(errorsOf(validateFieldConfig('DATE', { reminders: [15] }))).toEqual([{ field: 'config.reminders', code: 'unknown_field' }]);
      expect(errorsOf(validateFieldConfig('NUMBER', { reminders: [15] }))).toEqual([{ field: 'config.reminders', code: 'unknown_field' }]);
    });
  });

  it('is idempotent: a normalised configuration validates to itself', () => {
    const configs: Array<[FieldType, unknown]> = [
      ['TEXT', { maxLength: 12 }],
      ['NUMBER', { min: 0, precision: 0 }],
      ['SELECT', { options: [{ value: 'x' }] }],
      ['MULTI_SELECT', { options: [{ value: 'x', color: 'blue' }], maxSelected: 1 }],
      ['RELATION', { targetModel: 'orders', multiple: true }],
      ['FORMULA', { expression: 'LEN({title})', resultType: 'NUMBER' }],
      ['ATTACHMENTS', { allowedMimeTypes: ['image/*'] }],
      ['DATETIME', { reminders: [1440, 0, 10] }],
    ];
    for (const [type, config] of configs) {
      const first = validateFieldConfig(type, config);
      expect(first.ok).toBe(true);
      if (first.ok) expect(validateFieldConfig(type, first.value)).toEqual(first);
    }
  });

  it('never throws on arbitrary configurations', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELD_TYPES), fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true }), (type, config) => {
        const result = validateFieldConfig(type, config);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });
});
