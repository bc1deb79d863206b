import {
  checkFormulaFields,
  FIELD_KEY_PATTERN,
  validateFieldConfig,
  type FieldError,
  type FieldType,
  type FormulaResultType,
} from '@mrp/field-validation';
import { checkText } from '../forms/text-rules';
import { isIndexable } from './field-types';
import type { DataField } from './types';

export interface OptionRow {
  value: string;
  label: string;
  color: string;
}

/** Every setting of every type as the inputs hold them (text), so switching type loses nothing typed. */
export interface ConfigFormValues {
  maxLength: string;
  min: string;
  max: string;
  precision: string;
  /** Minutes before a DATETIME value, comma-separated. */
  reminders: string;
  options: OptionRow[];
  maxSelected: string;
  targetModel: string;
  multiple: boolean;
  expression: string;
  resultType: FormulaResultType;
  /** Comma-separated MIME types or patterns such as image/*. */
  allowedMimeTypes: string;
  maxSizeBytes: string;
  maxFiles: string;
}

export interface FieldFormValues {
  name: string;
  key: string;
  type: FieldType;
  required: boolean;
  indexed: boolean;
  config: ConfigFormValues;
}

export const EMPTY_CONFIG_FORM: ConfigFormValues = {
  maxLength: '',
  min: '',
  max: '',
  precision: '',
  reminders: '',
  options: [{ value: '', label: '', color: '' }],
  maxSelected: '',
  targetModel: '',
  multiple: false,
  expression: '',
  resultType: 'NUMBER',
  allowedMimeTypes: '',
  maxSizeBytes: '',
  maxFiles: '',
};

export const EMPTY_FIELD_FORM: FieldFormValues = { name: '', key: '', type: 'TEXT', required: false, indexed: false, config: EMPTY_CONFIG_FORM };

/**
 * A number typed in a settings input: blank is "not set"; anything that is not a number is
 * passed on as typed, so field-validation refuses it with its own words.
 */
function numberSetting(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const number = Number(trimmed);
  return Number.isNaN(number) ? trimmed : number;
}

function listSetting(text: string): string[] | undefined {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}

function withSettings(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

/** The `config` object a field of `type` is created or updated with, from the inputs. */
export function configFromForm(type: FieldType, form: ConfigFormValues): Record<string, unknown> {
  const options = form.options
    .filter((option) => option.value !== '' || option.label !== '' || option.color !== '')
    .map((option) => withSettings({ value: option.value, label: option.label || undefined, color: option.color || undefined }));
  switch (type) {
    case 'TEXT':
    case 'LONG_TEXT':
    case 'RICH_TEXT':
      return withSettings({ maxLength: numberSetting(form.maxLength) });
    case 'NUMBER':
      return withSettings({ min: numberSetting(form.min), max: numberSetting(form.max), precision: numberSetting(form.precision) });
    case 'DATETIME':
      return withSettings({ reminders: listSetting(form.reminders)?.map((item) => numberSetting(item)) });
    case 'SELECT':
      return { options };
    case 'MULTI_SELECT':
      return withSettings({ options, maxSelected: numberSetting(form.maxSelected) });
    case 'RELATION':
      return { targetModel: form.targetModel, multiple: form.multiple };
    case 'FORMULA':
      return { expression: form.expression, resultType: form.resultType };
    case 'FILE':
      return withSettings({ allowedMimeTypes: listSetting(form.allowedMimeTypes), maxSizeBytes: numberSetting(form.maxSizeBytes) });
    case 'ATTACHMENTS':
      return withSettings({
        allowedMimeTypes: listSetting(form.allowedMimeTypes),
        maxSizeBytes: numberSetting(form.maxSizeBytes),
        maxFiles: numberSetting(form.maxFiles),
      });
    case 'BOOLEAN':
    case 'DATE':
    case 'URL':
    case 'EMAIL':
      return {};
  }
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** Whether the field the inputs describe can be indexed: its value kind under the chosen settings says. */
export function formIsIndexable(form: Pick<FieldFormValues, 'type' | 'config'>): boolean {
  return isIndexable({ type: form.type, config: configFromForm(form.type, form.config) });
}

/** The inputs for an existing field, from its stored (normalised) configuration. */
export function formFromField(field: DataField): FieldFormValues {
  const config = field.config;
  const options = Array.isArray(config['options'])
    ? (config['options'] as Array<Record<string, unknown>>).map((option) => ({
        value: text(option['value']),
        // A label equal to the value was filled in by default: show it as not set.
        label: option['label'] === option['value'] ? '' : text(option['label']),
        color: text(option['color']),
      }))
    : EMPTY_CONFIG_FORM.options;
  const list = (value: unknown) => (Array.isArray(value) ? value.join(', ') : '');
  return {
    name: field.name,
    key: field.key,
    type: field.type,
    required: field.required,
    indexed: field.indexed,
    config: {
      ...EMPTY_CONFIG_FORM,
      maxLength: text(config['maxLength']),
      min: text(config['min']),
      max: text(config['max']),
      precision: text(config['precision']),
      reminders: list(config['reminders']),
      options,
      maxSelected: text(config['maxSelected']),
      targetModel: text(config['targetModel']),
      multiple: config['multiple'] === true,
      expression: text(config['expression']),
      resultType: (config['resultType'] as FormulaResultType | undefined) ?? 'NUMBER',
      allowedMimeTypes: list(config['allowedMimeTypes']),
      maxSizeBytes: text(config['maxSizeBytes']),
      maxFiles: text(config['maxFiles']),
    },
  };
}

/** A key suggested from the name: `Customer email` -> `customer_email`. */
export function keyFromName(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^[0-9_]+/, '');
  return words.slice(0, 63);
}

export const KEY_RULE_MESSAGE = 'Lowercase letters, digits and underscores, starting with a letter (at most 63)';

export function checkKey(key: string): string | undefined {
  if (key === '') return 'Required';
  return FIELD_KEY_PATTERN.test(key) ? undefined : KEY_RULE_MESSAGE;
}

export interface FieldInput {
  key: string;
  name: string;
  type: FieldType;
  config: Record<string, unknown>;
  required: boolean;
  indexed: boolean;
}

/**
 * The field's inputs checked as the server will check them: the key's pattern, the name, and
 * the configuration by field-validation's own rules (errors at `config.<setting>` paths, the
 * server's paths). `input` only when everything passes.
 */
export function checkFieldForm(
  form: FieldFormValues,
  { creating, otherFields = [] }: { creating: boolean; otherFields?: readonly DataField[] },
): { errors: Record<string, string>; input?: FieldInput } {
  const errors: Record<string, string> = {};
  const name = checkText(form.name, { required: true, maxLength: 200 });
  if (name) errors.name = name;
  if (creating) {
    const key = checkKey(form.key);
    if (key) errors.key = key;
  }
  const config = configFromForm(form.type, form.config);
  const checked = validateFieldConfig(form.type, config);
  if (!checked.ok) for (const error of checked.errors) errors[error.field] ??= error.message;
  if (form.type === 'RELATION' && form.config.targetModel === '') errors['config.targetModel'] = 'Choose the model it links to';
  // Formulas are checked against the model's other fields, as the server checks them all.
  if (checked.ok && Object.keys(errors).length === 0) {
    const definition = { key: form.key, type: form.type, config: checked.value, required: false };
    const others = otherFields.filter((field) => field.key !== form.key);
    for (const error of checkFormulaFields([...others, definition])) errors[error.field] ??= error.message;
  }
  if (Object.keys(errors).length > 0) return { errors };
  const required = form.type === 'FORMULA' ? false : form.required;
  const indexed = isIndexable({ type: form.type, config }) ? form.indexed : false;
  return { errors, input: { key: form.key, name: form.name.trim(), type: form.type, config, required, indexed } };
}

/** field-validation's errors keyed by path, the first message of each. */
export function errorsByPath(errors: readonly Pick<FieldError, 'field' | 'message'>[]): Record<string, string> {
  const byPath: Record<string, string> = {};
  for (const error of errors) byPath[error.field] ??= error.message;
  return byPath;
}
