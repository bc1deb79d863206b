import { isUuidString, validationFailed } from '@mrp/platform';

/** The position after which the next page starts: the last delivery of the previous page. */
export interface DeliveryCursor {
  /** `created_at` in UTC to the microsecond, as PostgreSQL wrote it (`2026-11-24T10:00:00.123456Z`). */
  createdAt: string;
  id: string;
}

const MICROSECOND_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Opaque to clients; it names only a delivery's position, which the owner filter still bounds. */
export function encodeDeliveryCursor(cursor: DeliveryCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

const notACursor = () => validationFailed([{ field: 'cursor', code: 'invalid_format', message: 'is not a cursor from a previous page' }]);

/**
 * A real instant PostgreSQL accepts: a Date that prints back to the same milliseconds (rules out
 * Feb 31 and 25:00), and not before 1970 (no delivery is; year 0000 is not a PostgreSQL date).
 */
function isInstant(value: string): boolean {
  const time = Date.parse(value);
  return time >= 0 && new Date(time).toISOString().slice(0, 23) === value.slice(0, 23);
}

export function decodeDeliveryCursor(cursor: string): DeliveryCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notACursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw notACursor();
  const [createdAt, id] = parsed as unknown[];
  if (typeof createdAt !== 'string' || !MICROSECOND_UTC.test(createdAt) || !isInstant(createdAt)) throw notACursor();
  if (typeof id !== 'string' || !isUuidString(id)) throw notACursor();
  return { createdAt, id };
}
