import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { isUuidString, validationFailed, type DomainError } from '@mrp/platform';
import type { SortPlan } from './sort';
import { MAX_CURSOR_LENGTH } from './query-limits';
import { sql, trustedSql, type SqlFragment } from './sql';

export { MAX_CURSOR_LENGTH };

/**
 * Opaque keyset cursors: base64url(JSON of the last row's sort values and id, bound to the list
 * they came from) + "." + a truncated HMAC under the deployment's cursor secret. A cursor that was
 * altered, signed elsewhere, or that belongs to another organization, model, sort or filter, is
 * refused with 400 instead of silently paging something else.
 *
 * A cursor is never longer than MAX_CURSOR_LENGTH, whatever the data. Sort values are carried in
 * full while they fit (such a cursor keeps working after its row is purged); when they do not, the
 * longest ones are replaced, one at a time, by a digest of the value, and the list query reads the
 * value from the cursor row itself (by id, in the same statement, under the list's own conditions).
 * That row must then still be listed for the caller with the same value, else the cursor is refused.
 */

/** A sort value the cursor does not carry: the cursor row's current value, which must have this digest. */
export interface CursorReference {
  digest: string;
}

export type CursorValue = string | null | CursorReference;

export interface CursorPosition {
  values: CursorValue[];
  id: string;
}

/** The last row of a page, as the list query returns it. */
export interface CursorRow {
  values: (string | null)[];
  id: string;
}

type PayloadValue = string | null | { h: string };

interface CursorPayload {
  /** Hash of what the cursor is bound to: model, sort, filter, search and trash. */
  b: string;
  v: PayloadValue[];
  i: string;
}

export interface CursorScope {
  organizationId: string;
  modelId: string;
  sort: SortPlan;
  /** The normalised filter tree, or undefined. */
  filter: unknown;
  /** The search text (`q`), or undefined. */
  search?: string;
  /** A page of the trash. */
  deleted?: boolean;
}

/** Hex characters of SHA-256 kept in a reference: 96 bits, enough to notice that a value changed. */
const DIGEST_LENGTH = 24;
const DIGEST_TEXT = new RegExp(`^[0-9a-f]{${DIGEST_LENGTH}}$`);

export function isCursorReference(value: CursorValue): value is CursorReference {
  return typeof value === 'object' && value !== null;
}

export function hasCursorReferences(position: CursorPosition): boolean {
  return position.values.some(isCursorReference);
}

/** The digest of a sort value as cursors carry it: SHA-256 of its UTF-8 text, in hex, truncated. */
export function sortValueDigest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, DIGEST_LENGTH);
}

/** sortValueDigest computed by PostgreSQL, over a text expression. */
export function sortValueDigestSql(expression: SqlFragment): SqlFragment {
  return sql`left(encode(sha256(convert_to(${expression}, 'UTF8')), 'hex'), ${trustedSql(String(DIGEST_LENGTH))})`;
}

/**
 * The one answer to every cursor this list cannot continue from: malformed, altered, signed with
 * another secret, issued for another list, or whose row is no longer listed for the caller. It is
 * the same whatever the reason, so a cursor never tells anything about rows the caller cannot see.
 */
export function invalidCursor(): DomainError {
  return validationFailed(
    [
      {
        field: 'cursor',
        code: 'invalid_format',
        message: 'This cursor cannot continue this list; request the first page again, without cursor',
      },
    ],
    "cursor cannot be used: pass the previous page's nextCursor unchanged, with the same model, sort, filter, q and deleted, or start again from the first page",
  );
}

/** Appended only when set, so the cursors of a plain list, issued before these existed, stay valid. */
function listVariant(scope: CursorScope): unknown[] {
  if (scope.search === undefined && !scope.deleted) return [];
  return [{ search: scope.search ?? null, deleted: scope.deleted === true }];
}

function binding(scope: CursorScope): string {
  return createHash('sha256')
    .update(JSON.stringify([scope.organizationId, scope.modelId, scope.sort.signature, scope.filter ?? null, ...listVariant(scope)]))
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

function sign(secret: string, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(secret, body)}`;
}

/**
 * The cursor after `row`: its sort values in full when that fits in MAX_CURSOR_LENGTH, else with
 * the longest values replaced by references until it fits. With every value referenced a cursor is
 * about half the bound, so the bound always holds.
 */
export function encodeCursor(secret: string, scope: CursorScope, row: CursorRow): string {
  const values: PayloadValue[] = [...row.values];
  const b = binding(scope);
  for (;;) {
    const cursor = sign(secret, { b, v: values, i: row.id });
    if (cursor.length <= MAX_CURSOR_LENGTH) return cursor;
    let longest = -1;
    let longestSize = 0;
    values.forEach((value, index) => {
      const size = typeof value === 'string' ? Buffer.byteLength(JSON.stringify(value)) : 0;
      if (size > longestSize) {
        longest = index;
        longestSize = size;
      }
    });
    if (longest < 0) throw new Error(`A cursor with every sort value referenced is still ${cursor.length} characters long`);
    values[longest] = { h: sortValueDigest(values[longest] as string) };
  }
}

function decodeValue(kind: SortPlan['terms'][number]['kind'], value: unknown): CursorValue | undefined {
  if (value === null || typeof value === 'string') return valueFits(kind, value) ? value : undefined;
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const digest = (value as { h?: unknown }).h;
  return keys.length === 1 && typeof digest === 'string' && DIGEST_TEXT.test(digest) ? { digest } : undefined;
}

/** The position a cursor continues from; every reason to refuse it throws the same invalidCursor(). */
export function decodeCursor(secret: string, scope: CursorScope, cursor: string): CursorPosition {
  if (cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
  const [body, signature, ...rest] = cursor.split('.');
  if (!body || !signature || rest.length > 0) throw invalidCursor();
  const expected = Buffer.from(mac(secret, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCursor();

  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (typeof payload !== 'object' || payload === null) throw invalidCursor();
  const { b, v, i } = payload as Partial<CursorPayload>;
  const terms = scope.sort.terms;
  if (b !== binding(scope) || !isUuidString(i) || !Array.isArray(v) || v.length !== terms.length) throw invalidCursor();
  const values = v.map((value: unknown, index) => decodeValue(terms[index].kind, value));
  if (values.some((value) => value === undefined)) throw invalidCursor();
  return { values: values as CursorValue[], id: i };
}
