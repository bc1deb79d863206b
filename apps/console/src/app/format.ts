const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp in the reader's own zone and language; `fallback` for none. */
export function formatDateTime(iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

const count = new Intl.NumberFormat();

/** A count in the reader's own language (1,234 or 1.234). */
export function formatCount(value: number): string {
  return count.format(value);
}
