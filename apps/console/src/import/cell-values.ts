import { isEmptyFieldValue, valueKind } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { parseLocaleNumber } from '../forms/locale-number';

/** A number as the API writes it; most CSV numbers are, so the locale's reading is seldom needed. */
const CANONICAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TRUE_WORDS = new Set(['true', 'yes', 'y', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0']);
/** How a list is written in one cell: `a, b` or `a; b`. */
const LIST_SEPARATOR = /[;,]/;

/** No value: the record is created without the field. */
export const NO_VALUE = undefined;

export interface CellReader {
  (text: string): unknown;
}

function optionReader(field: DataField): (text: string) => string {
  const options = Array.isArray(field.config['options']) ? (field.config['options'] as Array<{ value: string; label?: string }>) : [];
  const byWord = new Map<string, string>();
  for (const option of options) {
    byWord.set(option.value.toLowerCase(), option.value);
    if (option.label) byWord.set(option.label.trim().toLowerCase(), option.value);
  }
  // An option by its value or its label, in any case; anything else as written, for the rules to refuse.
  return (text) => byWord.get(text.toLowerCase()) ?? text;
}

const listOf = (text: string) =>
  text
    .split(LIST_SEPARATOR)
    .map((part) => part.trim())
    .filter((part) => part !== '');

function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * How a CSV cell becomes a field's value: what a spreadsheet writes (`1,200.50` in the reader's
 * locale, `yes`, an option's label, `a; b` for several) is read as the API's own; text that reads
 * as nothing valid is passed on as written, so the record rules refuse it in their own words. An
 * empty cell is no value.
 */
export function cellReader(field: DataField): CellReader {
  const blankIsNothing = (read: (text: string) => unknown): CellReader => (raw) => {
    const text = raw.trim();
    return text === '' ? NO_VALUE : read(text);
  };
  switch (valueKind(field)) {
    case 'number':
      return blankIsNothing((text) => (CANONICAL_NUMBER.test(text) ? Number(text) : (parseLocaleNumber(text) ?? text)));
    case 'boolean':
      return blankIsNothing((text) => {
        const word = text.toLowerCase();
        return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : text;
      });
    case 'datetime':
      return blankIsNothing((text) => {
        // A date-time without a zone is the reader's own, as in the record form.
        const instant = new Date(text);
        return Number.isNaN(instant.getTime()) ? text : instant.toISOString();
      });
    case 'list': {
      // Options by value or label (a multiple select); record ids as written (a multiple relation).
      const item = optionReader(field);
      return blankIsNothing((text) => listOf(text).map(item));
    }
    case 'object':
      return blankIsNothing(jsonOr);
    case 'text':
      // Free text, whose own empty value is "", keeps its spaces; only a cell of nothing but spaces is empty.
      if (isEmptyFieldValue(field, '')) return (raw) => (raw.trim() === '' ? NO_VALUE : field.type === 'EMAIL' || field.type === 'URL' ? raw.trim() : raw);
      // An option by value or label (a select); a record id as written (a relation).
      return blankIsNothing(optionReader(field));
    default:
      return blankIsNothing((text) => text);
  }
}
