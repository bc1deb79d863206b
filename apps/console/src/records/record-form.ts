import { isEmptyFieldValue, validateRecordData, valueKind, type FieldError, type WriteMode } from '@mrp/field-validation';
import { parseLocaleNumber } from '../forms/locale-number';
import type { ErrorDetail } from '../api/rpc-error';
import { isRpcError } from '../api/rpc-error';
import { firstInvalid, placeErrors, rootOfPath } from '../forms/error-paths';
import { liveFields } from '../data-models/field-types';
import type { DataField, DataRecord } from '../data-models/types';

/** One file as its inputs hold it. */
export interface FileInputs {
  url: string;
  name: string;
  mimeType: string;
  size: string;
}

/** What a field's input holds: text for most types, a list for multi-valued ones, files for files. */
export type FormValue = string | string[] | FileInputs | FileInputs[];
export type RecordFormValues = Record<string, FormValue>;

export const EMPTY_FILE: FileInputs = { url: '', name: '', mimeType: '', size: '' };

/** The fields a person fills in, title first: formulas are computed, never written. */
export function editableFields(fields: readonly DataField[]): DataField[] {
  const live = liveFields(fields).filter((field) => field.type !== 'FORMULA');
  return [...live.filter((field) => field.key === 'title'), ...live.filter((field) => field.key !== 'title')];
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** A stored UTC date-time as a `datetime-local` input shows it: the reader's own zone, to the minute. */
export function toLocalDateTimeInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function fileInputs(value: unknown): FileInputs {
  const file = (value ?? {}) as Record<string, unknown>;
  const text = (part: unknown) => (part === undefined || part === null ? '' : String(part));
  return { url: text(file['url']), name: text(file['name']), mimeType: text(file['mimeType']), size: text(file['size']) };
}

/** The inputs' starting values: a record's values, or empty (or prefilled) for a new record. */
export function formValuesOf(fields: readonly DataField[], record?: Pick<DataRecord, 'data'>): RecordFormValues {
  const values: RecordFormValues = {};
  for (const field of editableFields(fields)) {
    const value = record?.data[field.key];
    switch (valueKind(field)) {
      case 'object':
        // Files: one file's inputs, or a list of them for a field that holds several.
        if (field.type === 'ATTACHMENTS') values[field.key] = Array.isArray(value) ? value.map(fileInputs) : [];
        else values[field.key] = value ? fileInputs(value) : { ...EMPTY_FILE };
        break;
      case 'datetime':
        values[field.key] = typeof value === 'string' ? toLocalDateTimeInput(value) : '';
        break;
      case 'list':
        values[field.key] = Array.isArray(value) ? value.map(String) : [];
        break;
      default:
        values[field.key] = value === undefined || value === null ? '' : String(value);
    }
  }
  return values;
}

/**
 * A number as typed: blank is no value; the API's way (`1200.50`) or the reader's locale's
 * (`1,200.50`, `1.200,50`) where that is unambiguous. Text that reads as no number is passed on as
 * typed, so the rules refuse it with the words the server would use for the same input.
 */
function numberFrom(text: string): unknown {
  if (text.trim() === '') return null;
  return parseLocaleNumber(text) ?? text;
}

function fileFrom(inputs: FileInputs): Record<string, unknown> | null {
  if (!inputs.url.trim() && !inputs.name.trim() && !inputs.mimeType.trim() && !inputs.size.trim()) return null;
  const file: Record<string, unknown> = { url: inputs.url.trim(), name: inputs.name };
  if (inputs.mimeType.trim()) file['mimeType'] = inputs.mimeType.trim();
  if (inputs.size.trim()) file['size'] = numberFrom(inputs.size);
  return file;
}

/** The value sent for a field, from its input, by the field's value kind. */
export function valueFromInput(field: DataField, input: FormValue): unknown {
  // A blank input is the free-text types' own empty value (""), and no value (null) for the others.
  if (input === '') return isEmptyFieldValue(field, '') ? '' : null;
  switch (valueKind(field)) {
    case 'number':
      return numberFrom(input as string);
    case 'boolean':
      return input === 'true' ? true : input === 'false' ? false : null;
    case 'datetime': {
      // A datetime-local value has no zone: it is the reader's own, sent as UTC.
      const date = new Date(input as string);
      return Number.isNaN(date.getTime()) ? input : date.toISOString();
    }
    case 'object':
      return Array.isArray(input) ? (input as FileInputs[]).map(fileFrom).filter((file) => file !== null) : fileFrom(input as FileInputs);
    default:
      return input;
  }
}

/**
 * The record's `data` from the inputs. Creating: every field that has a value. Updating: only the
 * fields whose inputs changed (a merge patch; a cleared field is sent as null), so a save never
 * overwrites what someone else changed in a field this form left alone.
 */
export function dataFromForm(
  fields: readonly DataField[],
  values: RecordFormValues,
  mode: WriteMode,
  initial?: RecordFormValues,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of editableFields(fields)) {
    const input = values[field.key];
    if (input === undefined) continue;
    if (mode === 'update' && initial && JSON.stringify(input) === JSON.stringify(initial[field.key])) continue;
    const value = valueFromInput(field, input);
    if (mode === 'create' && (value === null || value === '' || (Array.isArray(value) && value.length === 0))) continue;
    data[field.key] = value;
  }
  return data;
}

export interface FormErrors {
  /** The first message per field key, shown under that field. */
  byKey: Record<string, string>;
  /** Refusals that belong to no field of the form, shown above it. */
  unplaced: ErrorDetail[];
  /** The field to focus: the first invalid one in form order. */
  first?: string;
}

/**
 * A refusal's path as a field key of the form: `tags[1]` -> `tags`, `files[0].url` -> `files`;
 * the input schema's own errors come as `data.<key>`.
 */
function fieldKeyOf(path: string, keys: ReadonlySet<string>): string {
  const root = rootOfPath(path);
  return keys.has(root) ? root : rootOfPath(path, 'data.');
}

export function placeFieldErrors(fields: readonly DataField[], errors: readonly ErrorDetail[]): FormErrors {
  const keys = editableFields(fields).map((field) => field.key);
  const keySet = new Set(keys);
  const { byKey, unplaced } = placeErrors(errors, keys, (path) => fieldKeyOf(path, keySet));
  return { byKey, unplaced, first: firstInvalid(keys, byKey) };
}

/**
 * Checks the data in the browser with field-validation's record rules, the ones the server
 * applies to the same data: the same codes and the same messages. `errors` as the server would
 * list them in `details[]`.
 */
export function checkRecordData(fields: readonly DataField[], data: Record<string, unknown>, mode: WriteMode): { errors: FieldError[]; placed: FormErrors } {
  const result = validateRecordData([...fields], data, { mode });
  const errors = result.ok ? [] : result.errors;
  return { errors, placed: placeFieldErrors(fields, errors) };
}

/** The server's `details[]` of a refused write, placed on the form's fields. */
export function serverFieldErrors(fields: readonly DataField[], error: unknown): FormErrors {
  return placeFieldErrors(fields, isRpcError(error) ? error.details : []);
}
