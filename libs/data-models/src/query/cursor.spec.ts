import { createHmac } from 'node:crypto';
import type { FieldDefinition } from '@mrp/field-validation';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH, sortValueDigest, type CursorScope } from './cursor';
import { parseSort } from './sort';

const fields = new Map<string, FieldDefinition>([
  ['body', { key: 'body', type: 'LONG_TEXT', config: { maxLength: 100_000 }, required: false }],
  ['note', { key: 'note', type: 'TEXT', config: { maxLength: 1000 }, required: false }],
  ['price', { key: 'price', type: 'NUMBER', config: {}, required: false }],
]);
const secret = 'unit-secret';
const id = '01900000-0000-7000-8000-000000000000';
const scope = (sort: string): CursorScope => ({ modelId: '01900000-0000-7000-8000-0000000000aa', sort: parseSort(sort, fields), filter: undefined });
const payloadOf = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
/** A correctly signed cursor around any payload: what only a holder of the secret could make. */
const signed = (payload: unknown) => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22)}`;
};

describe('cursors', () => {
  it('carries short sort values in full, as before', () => {
    const list = scope('price,-createdAt');
    const cursor = encodeCursor(secret, list, { values: ['12.5', '2030-01-01T00:00:00.000000Z'], id });
    expect(payloadOf(cursor).v).toEqual(['12.5', '2030-01-01T00:00:00.000000Z']);
    expect(decodeCursor(secret, list, cursor)).toEqual({ values: ['12.5', '2030-01-01T00:00:00.000000Z'], id });
  });

  it('refers to the longest values only, until the cursor fits', () => {
    const list = scope('note,body,price');
    const note = 'n'.repeat(150);
    const body = 'b'.repeat(400);
    const cursor = encodeCursor(secret, list, { values: [note, body, '7'], id });
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(payloadOf(cursor).v).toEqual([note, { h: sortValueDigest(body) }, '7']);
    expect(decodeCursor(secret, list, cursor)).toEqual({ values: [note, { digest: sortValueDigest(body) }, '7'], id });
  });

  it.each([
    ['three values of 100,000 characters', ['x'.repeat(100_000), 'y'.repeat(100_000), 'z'.repeat(100_000)]],
    ['non-ASCII and escaped text', ['中'.repeat(1000), '"\\\n'.repeat(300), '😀'.repeat(500)]],
    ['values just over the bound', ['a'.repeat(170), 'b'.repeat(170), 'c'.repeat(170)]],
  ])('stays within the bound: %s', (_, values) => {
    const list = scope('note,-body,title');
    const cursor = encodeCursor(secret, list, { values, id });
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(encodeURIComponent(cursor)).toBe(cursor);
    const decoded = decodeCursor(secret, list, cursor);
    decoded.values.forEach((value, index) => {
      expect(value).toEqual(typeof value === 'string' ? values[index] : { digest: sortValueDigest(values[index]) });
    });
  });

  it('digests the UTF-8 text', () => {
    expect(sortValueDigest('Ωμέγα')).toMatch(/^[0-9a-f]{24}$/);
    expect(sortValueDigest('Ωμέγα')).not.toBe(sortValueDigest('Ωμέγα '));
  });

  it('refuses malformed references even when signed, and anything too long or altered', () => {
    const list = scope('body');
    const binding = payloadOf(encodeCursor(secret, list, { values: ['x'], id })).b;
    for (const v of [[{ h: 'abc' }], [{ h: '0'.repeat(24), x: 1 }], [{}], [['0'.repeat(24)]], [{ h: 'G'.repeat(24) }], [1]]) {
      expect(() => decodeCursor(secret, list, signed({ b: binding, v, i: id }))).toThrow(/cursor is invalid/);
    }
    expect(decodeCursor(secret, list, signed({ b: binding, v: [{ h: '0'.repeat(24) }], i: id }))).toEqual({ values: [{ digest: '0'.repeat(24) }], id });

    const cursor = encodeCursor(secret, list, { values: ['b'.repeat(50_000)], id });
    expect(() => decodeCursor('another-secret', list, cursor)).toThrow(/cursor is invalid/);
    expect(() => decodeCursor(secret, scope('-body'), cursor)).toThrow(/different list/);
    expect(() => decodeCursor(secret, list, `${'a'.repeat(MAX_CURSOR_LENGTH)}.${cursor}`)).toThrow(/cursor is invalid/);
  });
});
