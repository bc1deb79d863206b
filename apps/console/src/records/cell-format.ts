import type { DataField } from '../data-models/types';

/** A select option as a chip: its label and its colour (a hex colour or a palette name). */
export interface Chip {
  label: string;
  color?: string;
}

/** What a grid cell shows for a value, by the field's type. */
export type CellDisplay =
  | { kind: 'empty' }
  | { kind: 'text'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'chips'; chips: Chip[] }
  | { kind: 'link'; href: string; text: string }
  | { kind: 'list'; items: string[] };

interface SelectOptionShape {
  value: string;
  label?: string;
  color?: string;
}

export function optionsOf(field: Pick<DataField, 'config'>): SelectOptionShape[] {
  const options = field.config['options'];
  return Array.isArray(options) ? (options as SelectOptionShape[]) : [];
}

function chipOf(field: DataField, value: unknown): Chip {
  const option = optionsOf(field).find((candidate) => candidate.value === value);
  return { label: option?.label ?? String(value), ...(option?.color ? { color: option.color } : {}) };
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/**
 * A number in the reader's locale; with the field's decimal places when it has them (`1,200.50`),
 * otherwise with as many as it carries, so nothing is rounded away.
 */
export function formatNumber(value: number, precision: number | undefined, locale?: string): string {
  const key = `${locale ?? ''}|${precision ?? ''}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, precision === undefined ? { maximumFractionDigits: 20 } : { minimumFractionDigits: precision, maximumFractionDigits: precision });
    numberFormats.set(key, format);
  }
  return format.format(value);
}

// Formatters are costly to make and a grid formats thousands of cells: one per locale and kind.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(locale: string | undefined, kind: 'day' | 'moment'): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${kind}`;
  let format = dateFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, kind === 'day' ? { dateStyle: 'medium', timeZone: 'UTC' } : { dateStyle: 'medium', timeStyle: 'short' });
    dateFormats.set(key, format);
  }
  return format;
}

/** A calendar day (`2026-12-04`) in the reader's locale, without shifting it through a time zone. */
export function formatDay(day: string, locale?: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return day;
  return dateFormat(locale, 'day').format(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))));
}

export function formatMoment(iso: string, locale?: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat(locale, 'moment').format(date);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Rich text as one line of plain text: tags dropped, never rendered (the grid is no place for stored HTML). */
export function richTextPreview(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A related record as the grid holds it: `{ id, title }` when expanded (no title when hidden), or a bare id. */
export function relatedTitles(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  return items.map((item) => {
    if (typeof item === 'string') return item;
    const related = item as { id?: unknown; title?: unknown };
    return typeof related.title === 'string' ? related.title : 'Hidden record';
  });
}

const fileName = (file: unknown) => String((file as { name?: unknown } | null)?.name ?? '');

/** What a cell shows for `value` of `field`. */
export function cellDisplay(field: DataField, value: unknown, locale?: string): CellDisplay {
  if (value === undefined || value === null || value === '') return field.type === 'BOOLEAN' ? { kind: 'boolean', value: false } : { kind: 'empty' };
  switch (field.type) {
    case 'NUMBER':
      return typeof value === 'number' ? { kind: 'number', text: formatNumber(value, field.config['precision'] as number | undefined, locale) } : { kind: 'text', text: String(value) };
    case 'BOOLEAN':
      return { kind: 'boolean', value: value === true };
    case 'DATE':
      return { kind: 'text', text: formatDay(String(value), locale) };
    case 'DATETIME':
      return { kind: 'text', text: formatMoment(String(value), locale) };
    case 'SELECT':
      return { kind: 'chips', chips: [chipOf(field, value)] };
    case 'MULTI_SELECT':
      return Array.isArray(value) ? (value.length === 0 ? { kind: 'empty' } : { kind: 'chips', chips: value.map((item) => chipOf(field, item)) }) : { kind: 'text', text: String(value) };
    case 'EMAIL':
      return { kind: 'link', href: `mailto:${String(value)}`, text: String(value) };
    case 'URL':
      // Only web addresses become links (the rules accept no other scheme; this keeps it so if they change).
      return /^https?:\/\//i.test(String(value)) ? { kind: 'link', href: String(value), text: String(value) } : { kind: 'text', text: String(value) };
    case 'RELATION': {
      const titles = relatedTitles(value);
      return titles.length === 0 ? { kind: 'empty' } : { kind: 'list', items: titles };
    }
    case 'FILE':
      return { kind: 'list', items: [fileName(value)] };
    case 'ATTACHMENTS':
      return Array.isArray(value) && value.length > 0 ? { kind: 'list', items: value.map(fileName) } : { kind: 'empty' };
    case 'RICH_TEXT':
      return { kind: 'text', text: richTextPreview(String(value)) };
    case 'LONG_TEXT':
      return { kind: 'text', text: String(value).replace(/\s+/g, ' ').trim() };
    case 'FORMULA':
      if (typeof value === 'number') return { kind: 'number', text: formatNumber(value, undefined, locale) };
      if (typeof value === 'boolean') return { kind: 'boolean', value };
      return { kind: 'text', text: String(value) };
    default:
      return { kind: 'text', text: typeof value === 'object' ? JSON.stringify(value) : String(value) };
  }
}

/** The cell's value as plain text (for a title attribute or a screen reader). */
export function cellText(display: CellDisplay): string {
  switch (display.kind) {
    case 'empty':
      return '';
    case 'boolean':
      return display.value ? 'Yes' : 'No';
    case 'chips':
      return display.chips.map((chip) => chip.label).join(', ');
    case 'list':
      return display.items.join(', ');
    default:
      return display.text;
  }
}
