import { createHash, createHmac, randomBytes } from 'node:crypto';
import { isDomainError } from '@mrp/platform';
import type { FieldDefinition } from '@mrp/field-validation';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH, sortValueDigest, type CursorScope } from './cursor';
import { parseSort } from './sort';

const fields = new Map<string, FieldDefinition>([
  ['body', { key: 'body', type: 'LONG_TEXT', config: { maxLength: 100_000 }, required: false }],
  ['note', { key: 'note', type: 'TEXT', config: { maxLength: 1000 }, required: false }],
  ['price', { key: 'price', type: 'NUMBER', config: {}, required: false }],
]);
const secret = randomBytes(32).toString('base64url');
const id = '01900000-0000-7000-8000-000000000000';
const organizationId = '01900000-0000-7000-8000-0000000000bb';
const modelId = '01900000-0000-7000-8000-0000000000aa';
const scope = (sort: string, overrides: Partial<CursorScope> = {}): CursorScope => ({
  organizationId,
  modelId,
  sort: parseSort(sort, fields),
  filter: undefined,
  ...overrides,
});
const payloadOf = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
/** A correctly signed cursor around any payload: what only a holder of the secret could make. */
const signed = (payload: unknown) => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22)}`;
};

describe('cursors', () => {
  it('are bound to the search and to the trash, while a plain list keeps the binding it had before either existed', () => {
    const plain = scope('-createdAt');
    const cursor = encodeCursor(secret, plain, { values: ['2030-01-01T00:00:00.000000Z'], id });
    // The binding of cursors issued before q and deleted existed.
    const before = createHash('sha256').update(JSON.stringify([organizationId, modelId, plain.sort.signature, null])).digest('base64url').slice(0, 16);
    expect(payloadOf(cursor).b).toBe(before);
    expect(payloadOf(encodeCursor(secret, { ...plain, search: undefined, deleted: false }, { values: ['2030-01-01T00:00:00.000000Z'], id })).b).toBe(before);
    for (const other of [{ search: 'abc' }, { deleted: true }, { search: 'abc', deleted: true }]) {
      expect(() => decodeCursor(secret, { ...plain, ...other }, cursor)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
    const searched = encodeCursor(secret, { ...plain, search: 'abc' }, { values: ['2030-01-01T00:00:00.000000Z'], id });
    expect(() => decodeCursor(secret, { ...plain, search: 'abd' }, searched)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(decodeCursor(secret, { ...plain, search: 'abc' }, searched)).toEqual({ values: ['2030-01-01T00:00:00.000000Z'], id });
  });

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
      expect(refusalOf(secret, list, signed({ b: binding, v, i: id }))).toEqual(REFUSAL);
    }
    expect(decodeCursor(secret, list, signed({ b: binding, v: [{ h: '0'.repeat(24) }], i: id }))).toEqual({ values: [{ digest: '0'.repeat(24) }], id });

    const cursor = encodeCursor(secret, list, { values: ['b'.repeat(50_000)], id });
    expect(refusalOf(secret, list, `${'a'.repeat(MAX_CURSOR_LENGTH)}.${cursor}`)).toEqual(REFUSAL);
  });
});

/** What refusing `cursor` answers: the error's code, message and details, or 'accepted'. */
function refusalOf(key: string, list: CursorScope, cursor: string): unknown {
  try {
    decodeCursor(key, list, cursor);
    return 'accepted';
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

/** The answer to a cursor made of random characters: every other refusal must be exactly this. */
const REFUSAL = refusalOf(secret, scope('-createdAt'), `${randomBytes(60).toString('base64url')}.${randomBytes(16).toString('base64url')}`);

describe('a cursor that cannot continue the list is refused with one answer, whatever the reason', () => {
  const list = scope('price,-createdAt');
  const cursor = encodeCursor(secret, list, { values: ['12.5', '2030-01-01T00:00:00.000000Z'], id });

  it('is a 400 naming the cursor, and says to start again', () => {
    expect(REFUSAL).toEqual({
      code: 'validation_failed',
      message: expect.stringMatching(/first page/),
      details: [{ field: 'cursor', code: 'invalid_format', message: expect.stringMatching(/first page/) }],
    });
    expect(refusalOf(secret, list, cursor)).toBe('accepted');
  });

  it('refuses a forged signature', () => {
    const body = cursor.split('.')[0];
    expect(refusalOf(secret, list, `${body}.${createHmac('sha256', 'data-models.cursor.v1').update(body).digest('base64url').slice(0, 22)}`)).toEqual(REFUSAL);
    expect(refusalOf(secret, list, `${body}.${randomBytes(16).toString('base64url').slice(0, 22)}`)).toEqual(REFUSAL);
  });

  it("refuses a cursor signed with another deployment's secret", () => {
    const elsewhere = encodeCursor(randomBytes(32).toString('base64url'), list, { values: ['12.5', '2030-01-01T00:00:00.000000Z'], id });
    expect(refusalOf(secret, list, elsewhere)).toEqual(REFUSAL);
  });

  it.each([
    ['another organization', scope('price,-createdAt', { organizationId: '01900000-0000-7000-8000-0000000000cc' })],
    ['another model', scope('price,-createdAt', { modelId: '01900000-0000-7000-8000-0000000000dd' })],
    ['another sort', scope('-price,-createdAt')],
    ['another filter', scope('price,-createdAt', { filter: { field: 'price', op: 'gt', value: 1 } })],
  ])('refuses a cursor of %s', (_, other) => {
    expect(refusalOf(secret, other, cursor)).toEqual(REFUSAL);
  });
});
