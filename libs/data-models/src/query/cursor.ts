import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest, isUuidString } from '@mrp/platform';
import type { SortPlan } from './sort';

/**
 * Opaque keyset cursors: base64url(JSON of the last row's sort values and id, bound to the list
 * they came from) + "." + a truncated HMAC. A cursor that was altered, or that belongs to another
 * model, sort or filter, is refused with 400 instead of silently paging something else.
 */

export interface CursorPosition {
  values: (string | null)[];
  id: string;
}

interface CursorPayload {
  /** Hash of what the cursor is bound to: model, sort and filter. */
  b: string;
  v: (string | null)[];
  i: string;
}

/** Used when the deployment configures no secret; cursors are then integrity-checked, not secret-keyed. */
export const DEFAULT_CURSOR_SECRET = 'data-models.cursor.v1';

export interface CursorScope {
  modelId: string;
  sort: SortPlan;
  /** The normalised filter tree, or undefined. */
  filter: unknown;
}

function binding(scope: CursorScope): string {
  return createHash('sha256')
    .update(JSON.stringify([scope.modelId, scope.sort.signature, scope.filter ?? null]))
    .digest('base64url')
    .slice(0, 16);
}

function mac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22);
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/;

/** Values are bound as parameters anyway; this keeps a forged value from reaching a SQL cast error. */
function valueFits(kind: SortPlan['terms'][number]['kind'], value: string | null): boolean {
  if (value === null) return true;
  switch (kind) {
    case 'number':
      return NUMBER_TEXT.test(value);
    case 'boolean':
      return value === 'true' || value === 'false';
    case 'date':
      return DATE_TEXT.test(value) && !Number.isNaN(Date.parse(value));
    case 'datetime':
    case 'timestamptz':
      return TIMESTAMP_TEXT.test(value) && !Number.isNaN(Date.parse(value));
    default:
      return true;
  }
}

export function encodeCursor(secret: string, scope: CursorScope, position: CursorPosition): string {
  const payload: CursorPayload = { b: binding(scope), v: position.values, i: position.id };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(secret, body)}`;
}

export function decodeCursor(secret: string, scope: CursorScope, cursor: string): CursorPosition {
  const invalid = () => badRequest('cursor is invalid: use the nextCursor of the previous page unchanged');
  const [body, signature, ...rest] = cursor.split('.');
  if (!body || !signature || rest.length > 0) throw invalid();
  const expected = Buffer.from(mac(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();

  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof payload !== 'object' || payload === null) throw invalid();
  const { b, v, i } = payload as Partial<CursorPayload>;
  if (b !== binding(scope)) {
    throw badRequest('cursor belongs to a different list: keep model, sort and filter unchanged while paging');
  }
  const terms = scope.sort.terms;
  if (
    !isUuidString(i) ||
    !Array.isArray(v) ||
    v.length !== terms.length ||
    !v.every((value, index) => (value === null || typeof value === 'string') && valueFits(terms[index].kind, value))
  ) {
    throw invalid();
  }
  return { values: v, id: i };
}
