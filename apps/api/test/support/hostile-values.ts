import fc from 'fast-check';

/**
 * Generators of hostile request input for the sweep of every procedure and route: strings that
 * PostgreSQL or JavaScript mishandle, numbers at the edges of doubles, prototype keys, deep
 * nesting, wrong types, next to plausible values (real ids and keys) that get past the first
 * checks and reach the handlers.
 */

/** JSON text placed as it is: numbers JSON.stringify cannot write (-0, 2^53+1, 1e400) and deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a generated value; RawJson parts are written verbatim, every own key (`__proto__` too) is kept. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const percentByte = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is written as the three bytes
 * a careless encoder would produce: what a hostile client can put in a URL.
 */
export function percentEncode(text: string): string {
  let encoded = '';
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const next = text.charCodeAt(index + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      encoded += encodeURIComponent(text.slice(index, index + 2));
      index++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map(percentByte).join('');
    } else {
      encoded += encodeURIComponent(text.charAt(index));
    }
  }
  return encoded;
}

/** Objects built from entries, so a `__proto__` key is an own property and not the prototype. */
const objectOf = (entries: ReadonlyArray<readonly [string, unknown]>) => Object.fromEntries(entries) as Record<string, unknown>;

const MEGABYTE = 1024 * 1024;
/** Fits a 1 MiB body only when the rest of the request is small; often it does not (413). */
export const ONE_MEGABYTE_STRING = 'x'.repeat(MEGABYTE - 64);

const nested = (depth: number, open: string, close: string, inner = '1') => new RawJson(open.repeat(depth) + inner + close.repeat(depth));

export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t',
  'a\u0000b',
  '\u0000',
  '\ud800',
  '\udfff tail',
  'cut \ud83d',
  '\udc00\ud800',
  '😀',
  '\u202e\u0301',
  'line\nbreak',
  '\r\n',
  '%',
  '%00',
  '%zz',
  '%ED%A0%80',
  '\\',
  '\\u0000',
  "'",
  '"',
  "' OR '1'='1",
  '1; DROP TABLE records; --',
  '$1',
  '?',
  ':id',
  '*',
  '_%',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '0',
  '-1',
  '1e308',
  '{}',
  '[]',
  '{"field":"title","op":"eq","value":"\\u0000"}',
  '../../etc/passwd',
  'http://169.254.169.254/latest/meta-data',
  'javascript:alert(1)',
  '<script>alert(1)</script>',
  'mrk_' + 'a'.repeat(40),
  'Bearer x',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  'x'.repeat(63),
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(513),
  'é'.repeat(1001),
  'x'.repeat(70_000),
];

export const NASTY_NUMBERS: readonly unknown[] = [
  0,
  1,
  -1,
  0.5,
  1.5,
  -0.000001,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e21,
  1e308,
  -1e308,
  new RawJson('-0'),
  new RawJson('9007199254740993'),
  new RawJson('-9007199254740993'),
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('1e-400'),
  new RawJson('1.0'),
  new RawJson('1E+2'),
  new RawJson('123456789012345678901234567890'),
];

/** Structures that have broken parsers and walkers: deep nesting, width, prototype keys. */
const NASTY_STRUCTURES: readonly unknown[] = [
  nested(10, '[', ']'),
  nested(63, '[', ']'),
  nested(65, '[', ']'),
  nested(1000, '{"a":', '}'),
  nested(100_000, '[', ']'),
  Array.from({ length: 10_000 }, () => 'x'),
  objectOf(Array.from({ length: 2000 }, (_, index) => [`k${index}`, index] as const)),
  objectOf([['__proto__', objectOf([['polluted', true]])]]),
  objectOf([['constructor', objectOf([['prototype', objectOf([['polluted', true]])]])]]),
  objectOf([['a\u0000', 1]]),
  objectOf([['\ud800', 1]]),
];

/** Characters that break storage or parsing, to slip into otherwise plausible text. */
const POISON = ['\u0000', '\ud800', '\udfff', '\u0000\u0000', '%00', '\r\n', '\u202e'];

/** A plausible string with a poisonous character slipped in somewhere, so it passes format checks that do not look for it. */
export function tainted(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(base, fc.constantFrom(...POISON), fc.nat())
    .map(([text, poison, at]) => {
      const position = text.length === 0 ? 0 : at % (text.length + 1);
      return text.slice(0, position) + poison + text.slice(position);
    });
}

export interface HostileContext {
  /** Real identifiers of the world under test (ids, keys, tokens), so generated input reaches the handlers. */
  known: readonly string[];
  /** Plausible values for properties of these names (a model key for `model`, a filter tree for `filter`). */
  hints?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
}

const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

export function hostileString({ known }: HostileContext): fc.Arbitrary<string> {
  const branches = [
    weighted(4, fc.constantFrom(...NASTY_STRINGS)),
    weighted(2, fc.string({ unit: 'binary', maxLength: 30 })),
    weighted(2, fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udfff', 'a', '%', '"', '\\', '/', '.'), maxLength: 12 })),
    weighted(1, fc.uuid()),
    weighted(1, fc.constant(ONE_MEGABYTE_STRING)),
  ];
  if (known.length > 0) {
    branches.push(weighted(4, fc.constantFrom(...known)));
    branches.push(weighted(1, fc.tuple(fc.constantFrom(...known), fc.constantFrom('\u0000', '\ud800', ' ', '%', 'X')).map(([value, tail]) => value + tail)));
    branches.push(weighted(1, fc.constantFrom(...known).map((value) => value.toUpperCase())));
  }
  return fc.oneof(...branches);
}

export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  weighted(3, fc.constantFrom(...NASTY_NUMBERS)),
  weighted(1, fc.integer()),
  weighted(1, fc.double({ noNaN: true, noDefaultInfinity: true })),
);

const hostileKey = (context: HostileContext) =>
  fc.oneof(weighted(3, hostileString(context).filter((key) => key.length < 5000)), weighted(1, fc.constantFrom('__proto__', 'constructor', 'prototype')));

/** Any JSON value, hostile at every level. */
export function hostileJson(context: HostileContext): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      weighted(4, hostileString(context)),
      weighted(3, hostileNumber),
      weighted(1, fc.boolean()),
      weighted(1, fc.constant(null)),
      weighted(1, fc.constantFrom(...NASTY_STRUCTURES)),
      weighted(2, fc.array(tie('value'), { maxLength: 4 })),
      weighted(2, fc.array(fc.tuple(hostileKey(context), tie('value')), { maxLength: 4 }).map(objectOf)),
    ),
  }));
  return value;
}

type Schema = Record<string, unknown>;

const asSchema = (value: unknown): Schema => (value !== null && typeof value === 'object' ? (value as Schema) : {});

function plausibleString(schema: Schema, context: HostileContext): fc.Arbitrary<string> {
  const branches: Array<{ weight: number; arbitrary: fc.Arbitrary<string> }> = [];
  if (context.known.length > 0) branches.push(weighted(3, fc.constantFrom(...context.known)));
  const matching = typeof schema['pattern'] === 'string' ? context.known.filter((value) => new RegExp(schema['pattern'] as string).test(value)) : [];
  if (matching.length > 0) branches.push(weighted(6, fc.constantFrom(...matching)));
  if (schema['format'] === 'uuid') branches.push(weighted(2, fc.uuid()));
  if (schema['format'] === 'email') branches.push(weighted(2, fc.emailAddress()));
  if (schema['format'] === 'date-time') {
    branches.push(weighted(2, fc.date({ noInvalidDate: true }).map((date) => date.toISOString())));
  }
  if (typeof schema['pattern'] === 'string') branches.push(weighted(2, fc.stringMatching(new RegExp(schema['pattern'] as string))));
  const maxLength = typeof schema['maxLength'] === 'number' ? Math.min(schema['maxLength'] as number, 40) : 40;
  branches.push(weighted(2, fc.string({ minLength: 1, maxLength: Math.max(1, maxLength) })));
  const plausible = fc.oneof(...branches);
  return fc.oneof(weighted(4, plausible), weighted(1, tainted(plausible)));
}

function plausibleNumber(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema['minimum'] === 'number' ? (schema['minimum'] as number) : -1_000_000;
  const max = typeof schema['maximum'] === 'number' ? (schema['maximum'] as number) : 1_000_000;
  return integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
}

/**
 * Input for a JSON Schema (the TypeBox schemas procedures declare): mostly shaped as the schema
 * asks, with hostile strings and numbers in its leaves, and at every level sometimes a hostile
 * value of any type instead.
 */
export function fromSchema(schemaValue: unknown, context: HostileContext): fc.Arbitrary<unknown> {
  return fc.oneof(weighted(8, shaped(asSchema(schemaValue), context)), weighted(1, hostileJson(context)));
}

function shaped(schema: Schema, context: HostileContext): fc.Arbitrary<unknown> {
  const union = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(union) && union.length > 0) return fc.oneof(...union.map((branch) => fromSchema(branch, context)));
  if (Object.hasOwn(schema, 'const')) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const type = Array.isArray(schema['type']) ? (schema['type'][0] as unknown) : schema['type'];
  switch (type) {
    case 'string':
      return fc.oneof(weighted(3, plausibleString(schema, context)), weighted(2, hostileString(context)));
    case 'integer':
    case 'number':
      return fc.oneof(weighted(3, plausibleNumber(schema, type === 'integer')), weighted(2, hostileNumber));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema['items'], context), { maxLength: 4 });
    case 'object':
      return shapedObject(schema, context);
    default:
      // No type (`Type.Unknown()`): anything, with plausible record values among it.
      return fc.oneof(weighted(2, hostileJson(context)), weighted(2, plausibleFieldValue(context)));
  }
}

function plausibleFieldValue(context: HostileContext): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom('text', 1, 0, true, false, null, '', [], '2024-02-29', '2024-01-01T10:00:00+02:00', 'https://example.com', 'a@example.com'),
    fc.constantFrom({ url: 'https://example.com/a.pdf', name: 'a.pdf' }, [{ url: 'https://example.com/a.pdf', name: 'a.pdf', size: 1e308 }]),
    context.known.length > 0 ? fc.constantFrom(...context.known) : fc.constant('x'),
    context.known.length > 0 ? fc.array(fc.constantFrom(...context.known), { maxLength: 3 }) : fc.constant([]),
  );
}

function shapedObject(schema: Schema, context: HostileContext): fc.Arbitrary<unknown> {
  const properties = asSchema(schema['properties']);
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  const declared = Object.entries(properties).map(([key, child]) => {
    const hint = context.hints && Object.hasOwn(context.hints, key) ? context.hints[key] : undefined;
    // A hint names a property, a pattern or format says more: then the schema's own values lead.
    const constrained = Object.hasOwn(asSchema(child), 'pattern') || Object.hasOwn(asSchema(child), 'format');
    const value = hint ? fc.oneof(weighted(constrained ? 1 : 3, hint), weighted(constrained ? 3 : 1, fromSchema(child, context))) : fromSchema(child, context);
    return fc.option(value.map((item) => [key, item] as const), { nil: undefined, freq: required.has(key) ? 10 : 2 });
  });
  const patternValues = Object.values(asSchema(schema['patternProperties']));
  const extraValue = patternValues.length > 0 ? fromSchema(patternValues[0], context) : hostileJson(context);
  const extraKeys = patternValues.length > 0 ? fc.oneof(weighted(3, plausibleString({}, context)), weighted(1, hostileKey(context))) : hostileKey(context);
  const extras = fc.array(fc.tuple(extraKeys, extraValue), { maxLength: patternValues.length > 0 ? 4 : 1 });
  return fc
    .tuple(fc.tuple(...declared), fc.oneof(weighted(patternValues.length > 0 ? 1 : 4, fc.constant([])), weighted(1, extras)))
    .map(([present, extra]) => objectOf([...present.filter((entry) => entry !== undefined), ...extra]));
}

/** What the sweep knows about the model it aims at. */
export interface ModelUnderTest {
  key: string;
  recordIds: readonly string[];
  /** Valid values per field key. */
  values: Readonly<Record<string, fc.Arbitrary<unknown>>>;
}

/** Property hints for record procedures and routes: record data, filter trees and sorts over a real model. */
export function recordHints(context: HostileContext, model: ModelUnderTest, ops: readonly string[]): Record<string, fc.Arbitrary<unknown>> {
  const fieldKeys = Object.keys(model.values);
  const anyField = fc.oneof(weighted(6, fc.constantFrom(...fieldKeys, 'title', 'createdAt', 'updatedAt', 'id')), weighted(1, hostileString(context)));
  const valueFor = (key: string) =>
    fc.oneof(weighted(4, Object.hasOwn(model.values, key) ? model.values[key] : fc.string()), weighted(1, hostileJson(context)));
  const entry = fc.constantFrom(...fieldKeys).chain((key) => valueFor(key).map((value) => [key, value] as const));
  const data = fc
    .tuple(fc.oneof(weighted(5, fc.string({ minLength: 1, maxLength: 20 })), weighted(1, hostileJson(context))), fc.array(entry, { maxLength: 5 }))
    .map(([title, entries]) => objectOf([['title', title], ...entries]));
  const condition = fc
    .tuple(anyField, fc.oneof(weighted(6, fc.constantFrom(...ops)), weighted(1, hostileString(context))))
    .chain(([field, op]) =>
      fc
        .oneof(
          weighted(3, valueFor(field).map((value) => [['value', value]] as const)),
          weighted(1, fc.array(valueFor(field), { minLength: 1, maxLength: 3 }).map((values) => [['value', values]] as const)),
          weighted(1, fc.constant([] as const)),
        )
        .map((value) => objectOf([['field', field], ['op', op], ...value])),
    );
  const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      weighted(4, condition),
      weighted(1, fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((children) => objectOf([['and', children]]))),
      weighted(1, fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((children) => objectOf([['or', children]]))),
      weighted(1, tie('tree').map((child) => objectOf([['not', child]]))),
    ),
  }));
  const sort = fc
    .array(fc.tuple(fc.boolean(), anyField).map(([descending, key]) => `${descending ? '-' : ''}${key}`), { minLength: 1, maxLength: 4 })
    .map((keys) => keys.join(','));
  return {
    model: fc.constant(model.key),
    key: fc.constant(model.key),
    id: fc.constantFrom(...model.recordIds),
    data,
    filter: fc.oneof(weighted(3, tree), weighted(1, tree.map(toJsonText))),
    sort,
    limit: fc.integer({ min: 1, max: 100 }),
  };
}
