import { FIELD_TYPES, validateFieldConfig, type FieldType } from '@mrp/field-validation';
import { describe, expect, it } from 'vitest';
import { checkFieldForm, configFromForm, EMPTY_CONFIG_FORM, EMPTY_FIELD_FORM, formFromField, keyFromName, type ConfigFormValues } from './field-config-form';
import type { DataField } from './types';

const FILLED: ConfigFormValues = {
  maxLength: '200',
  min: '0',
  max: '10.5',
  precision: '1',
  reminders: '1440, 15',
  options: [
    { value: 'open', label: 'Open', color: '#00ff00' },
    { value: 'won', label: '', color: '' },
  ],
  maxSelected: '2',
  targetModel: 'companies',
  multiple: true,
  expression: '{score} * 2',
  resultType: 'NUMBER',
  allowedMimeTypes: 'application/pdf, image/*',
  maxSizeBytes: '1048576',
  maxFiles: '3',
};

const EXPECTED: Record<FieldType, Record<string, unknown>> = {
  TEXT: { maxLength: 200 },
  LONG_TEXT: { maxLength: 200 },
  RICH_TEXT: { maxLength: 200 },
  NUMBER: { min: 0, max: 10.5, precision: 1 },
  BOOLEAN: {},
  DATE: {},
  DATETIME: { reminders: [1440, 15] },
  SELECT: { options: [{ value: 'open', label: 'Open', color: '#00ff00' }, { value: 'won' }] },
  MULTI_SELECT: { options: [{ value: 'open', label: 'Open', color: '#00ff00' }, { value: 'won' }], maxSelected: 2 },
  RELATION: { targetModel: 'companies', multiple: true },
  URL: {},
  EMAIL: {},
  FORMULA: { expression: '{score} * 2', resultType: 'NUMBER' },
  FILE: { allowedMimeTypes: ['application/pdf', 'image/*'], maxSizeBytes: 1048576 },
  ATTACHMENTS: { allowedMimeTypes: ['application/pdf', 'image/*'], maxSizeBytes: 1048576, maxFiles: 3 },
};

function field(type: FieldType, config: Record<string, unknown>): DataField {
  return { key: 'f', name: 'F', type, config, required: false, position: 1, indexed: false, indexStatus: null, indexError: null, archivedAt: null };
}

describe('the settings of every field type', () => {
  for (const type of FIELD_TYPES) {
    it(`${type}: the inputs become the config the procedures take, which field-validation accepts`, () => {
      const config = configFromForm(type, FILLED);
      expect(config).toEqual(EXPECTED[type]);
      const checked = validateFieldConfig(type, config);
      expect(checked.ok).toBe(true);
      // A stored (normalised) configuration shows in the inputs and comes back the same.
      if (checked.ok) expect(validateFieldConfig(type, configFromForm(type, formFromField(field(type, checked.value)).config))).toEqual(checked);
    });
  }

  it('leaves unset settings out, so the defaults apply', () => {
    expect(configFromForm('TEXT', EMPTY_CONFIG_FORM)).toEqual({});
    expect(configFromForm('ATTACHMENTS', EMPTY_CONFIG_FORM)).toEqual({});
    expect(configFromForm('DATETIME', EMPTY_CONFIG_FORM)).toEqual({});
  });
});

describe('checkFieldForm', () => {
  const form = (type: FieldType, config: Partial<ConfigFormValues>, name = 'Score') => ({ ...EMPTY_FIELD_FORM, name, key: keyFromName(name), type, config: { ...EMPTY_CONFIG_FORM, ...config } });

  it("reports field-validation's errors at the server's config paths", () => {
    const checked = checkFieldForm(form('NUMBER', { min: '10', max: '1', precision: 'two' }), { creating: true });
    expect(checked.input).toBeUndefined();
    expect(checked.errors).toEqual({ 'config.precision': 'config.precision must be an integer.' });
    expect(checkFieldForm(form('NUMBER', { min: '10', max: '1' }), { creating: true }).errors).toEqual({
      'config.max': 'config.max must be greater than or equal to config.min.',
    });
    expect(checkFieldForm(form('SELECT', { options: [{ value: 'a', label: '', color: '' }, { value: 'a', label: '', color: '' }] }), { creating: true }).errors).toEqual({
      'config.options[1].value': 'Option values must be unique.',
    });
    expect(checkFieldForm(form('DATETIME', { reminders: '15, 99999' }), { creating: true }).errors).toEqual({
      'config.reminders[1]': 'config.reminders[1] must be between 0 and 40320.',
    });
  });

  it('checks a formula against the model’s other fields', () => {
    const others = [field('NUMBER', {})].map((other) => ({ ...other, key: 'score' }));
    expect(checkFieldForm(form('FORMULA', { expression: '{score} * 2', resultType: 'NUMBER' }, 'Double'), { creating: true, otherFields: others }).input).toMatchObject({
      key: 'double',
      config: { expression: '{score} * 2', resultType: 'NUMBER' },
      required: false,
    });
    const unknown = checkFieldForm(form('FORMULA', { expression: '{nope} + 1', resultType: 'NUMBER' }, 'Double'), { creating: true, otherFields: others });
    expect(unknown.errors['config.expression']).toMatch(/\{nope\} is not a field of this model/);
  });

  it('asks for a key and a relation target', () => {
    expect(checkFieldForm({ ...form('RELATION', {}), key: '9lives' }, { creating: true }).errors).toMatchObject({
      key: expect.stringMatching(/^Lowercase letters/),
      'config.targetModel': expect.any(String),
    });
  });

  it('suggests keys from names', () => {
    expect(keyFromName('Customer e-mail')).toBe('customer_e_mail');
    expect(keyFromName('2nd Café')).toBe('nd_cafe');
  });
});
