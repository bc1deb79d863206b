import fc from 'fast-check';
import type { FieldDefinition } from '../core/field-definition';
import { FIELD_TYPES } from '../core/field-types';
import type { FieldType } from '../core/field-types';
import type { Result } from '../core/result';
import { FILTER_OPS, opsForField, opsForFieldType } from './filter-ops';
import type { FilterNode } from './filter-tree';
import { FILTER_LIMITS } from './filter-tree';
import { SYSTEM_FILTER_FIELDS } from './system-fields';
import { validateFilterTree } from './validate-filter-tree';

const field = (key: string, type: FieldType, config: Record<string, unknown> = {}, extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  key,
  type,
  config,
  required: false,
  ...extra,
});

const OPTIONS = [{ value: 'open' }, { value: 'done' }];
const FIELDS: FieldDefinition[] = [
  field('title', 'TEXT', { maxLength: 200 }, { required: true }),
  field('price', 'NUMBER'),
  field('notes', 'LONG_TEXT'),
  field('body', 'RICH_TEXT'),
  field('active', 'BOOLEAN'),
  field('due', 'DATE'),
  field('starts_at', 'DATETIME'),
  field('status', 'SELECT', { options: OPTIONS }),
  field('labels', 'MULTI_SELECT', { options: OPTIONS }),
  field('owner', 'RELATION', { targetModel: 'users' }),
  field('watchers', 'RELATION', { targetModel: 'users', multiple: true }),
  field('website', 'URL'),
  field('email', 'EMAIL'),
  field('total', 'FORMULA', { expression: '{price} * 2', resultType: 'NUMBER' }),
  field('summary', 'FORMULA', { expression: 'UPPER({title})', resultType: 'TEXT' }),
  field('contract', 'FILE'),
  field('photos', 'ATTACHMENTS'),
  field('legacy', 'TEXT', {}, { archivedAt: new Date('2024-01-01T00:00:00Z') }),
];

const ID = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const leaf = (value = 1): FilterNode => ({ field: 'price', op: 'eq', value });
const errorList = (result: Result<unknown>) => (result.ok ? [] : result.errors.map(({ field: path, code }) => `${path}:${code}`));

/** `not` wrapped around a leaf until the tree has the given depth. */
function nestedNots(depth: number): FilterNode {
  let node: FilterNode = leaf();
  for (let level = 1; level < depth; level++) node = { not: node };
  return node;
}

describe('opsForFieldType', () => {
  it('defines an operator set for every field type', () => {
    for (const type of FIELD_TYPES) {
      expect(opsForFieldType(type).length).toBeGreaterThan(0);
      for (const op of opsForFieldType(type)) expect(FILTER_OPS).toContain(op);
    }
  });

  it('matches the documented sets', () => {
    expect(opsForFieldType('TEXT')).toEqual(['eq', 'neq', 'contains', 'startsWith', 'in', 'notIn', 'isEmpty', 'isNotEmpty']);
    expect(opsForFieldType('EMAIL')).toEqual(opsForFieldType('TEXT'));
    expect(opsForFieldType('NUMBER')).toEqual(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'notIn', 'isEmpty', 'isNotEmpty']);
    expect(opsForFieldType('DATETIME')).toEqual(opsForFieldType('NUMBER'));
    expect(opsForFieldType('BOOLEAN')).toEqual(['eq', 'neq', 'isEmpty', 'isNotEmpty']);
    expect(opsForFieldType('SELECT')).toEqual(['eq', 'neq', 'in', 'notIn', 'isEmpty', 'isNotEmpty']);
    expect(opsForFieldType('MULTI_SELECT')).toEqual(['contains', 'in', 'isEmpty', 'isNotEmpty']);
    expect(opsForFieldType('FILE')).toEqual(['isEmpty', 'isNotEmpty']);
    expect(opsForFieldType('ATTACHMENTS')).toEqual(['isEmpty', 'isNotEmpty']);
  });

  it('refines RELATION and FORMULA by configuration in opsForField', () => {
    expect(opsForField(field('r', 'RELATION', { targetModel: 'x' }))).toEqual(['eq', 'neq', 'in', 'notIn', 'isEmpty', 'isNotEmpty']);
    expect(opsForField(field('r', 'RELATION', { targetModel: 'x', multiple: true }))).toEqual(['contains', 'in', 'isEmpty', 'isNotEmpty']);
    expect(opsForField(field('f', 'FORMULA', { expression: '1', resultType: 'BOOLEAN' }))).toEqual(['eq', 'neq', 'isEmpty', 'isNotEmpty']);
    for (const type of ['RELATION', 'FORMULA'] as const) {
      for (const op of opsForField(FIELDS.find((candidate) => candidate.type === type)!)) expect(opsForFieldType(type)).toContain(op);
    }
  });
});

describe('validateFilterTree', () => {
  it('accepts and normalises a typical filter', () => {
    const tree = {
      and: [
        { field: 'status', op: 'in', value: ['open', 'done', 'open'] },
        { field: 'starts_at', op: 'gte', value: '2024-01-01T10:00:00+02:00' },
        { or: [{ field: 'labels', op: 'contains', value: 'open' }, { not: { field: 'notes', op: 'isEmpty' } }] },
        { field: 'owner', op: 'eq', value: ID.toUpperCase() },
        { field: 'email', op: 'eq', value: 'Ann@Example.COM' },
        { field: 'website', op: 'startsWith', value: 'https://' },
      ],
    };
    expect(validateFilterTree(tree, FIELDS)).toEqual({
      ok: true,
      value: {
        and: [
          { field: 'status', op: 'in', value: ['open', 'done'] },
          { field: 'starts_at', op: 'gte', value: '2024-01-01T08:00:00.000Z' },
          { or: [{ field: 'labels', op: 'contains', value: 'open' }, { not: { field: 'notes', op: 'isEmpty' } }] },
          { field: 'owner', op: 'eq', value: ID },
          { field: 'email', op: 'eq', value: 'Ann@example.com' },
          { field: 'website', op: 'startsWith', value: 'https://' },
        ],
      },
    });
  });

  it('accepts system fields with their own rules', () => {
    expect(Object.keys(SYSTEM_FILTER_FIELDS)).toEqual(['createdAt', 'updatedAt', 'title', 'id']);
    expect(validateFilterTree({ field: 'createdAt', op: 'lt', value: '2024-06-01T00:00:00-05:00' }, FIELDS)).toEqual({
      ok: true,
      value: { field: 'createdAt', op: 'lt', value: '2024-06-01T05:00:00.000Z' },
    });
    expect(validateFilterTree({ field: 'id', op: 'notIn', value: [ID] }, FIELDS).ok).toBe(true);
    expect(validateFilterTree({ field: 'title', op: 'contains', value: 'widget' }, []).ok).toBe(true);
    expect(errorList(validateFilterTree({ field: 'id', op: 'contains', value: ID }, FIELDS))).toEqual(['filter.op:invalid_option']);
    expect(errorList(validateFilterTree({ field: 'id', op: 'eq', value: 'abc' }, FIELDS))).toEqual(['filter.value:invalid_format']);
    expect(errorList(validateFilterTree({ field: 'updatedAt', op: 'gt', value: '2024-06-01' }, FIELDS))).toEqual(['filter.value:invalid_format']);
  });

  describe('limits', () => {
    it(`accepts exactly ${FILTER_LIMITS.maxNodes} nodes and rejects ${FILTER_LIMITS.maxNodes + 1}`, () => {
      const withNodes = (count: number): FilterNode => ({ and: Array.from({ length: count - 1 }, (_, index) => leaf(index)) });
      expect(validateFilterTree(withNodes(100), FIELDS).ok).toBe(true);
      expect(errorList(validateFilterTree(withNodes(101), FIELDS))).toEqual(['filter:out_of_range']);
    });

    it('counts nodes across nested groups', () => {
      // 1 root + 3 groups + 3 × 31 leaves + 3 leaves = 100 nodes.
      const group = (count: number): FilterNode => ({ or: Array.from({ length: count }, () => leaf()) });
      const tree = (extraLeaves: number): FilterNode => ({
        and: [group(31), group(31), group(31), ...Array.from({ length: extraLeaves }, () => leaf())],
      });
      expect(validateFilterTree(tree(3), FIELDS).ok).toBe(true);
      expect(errorList(validateFilterTree(tree(4), FIELDS))).toEqual(['filter:out_of_range']);
    });

    it(`accepts depth ${FILTER_LIMITS.maxDepth} and rejects depth ${FILTER_LIMITS.maxDepth + 1}`, () => {
      expect(validateFilterTree(leaf(), FIELDS).ok).toBe(true);
      expect(validateFilterTree(nestedNots(8), FIELDS).ok).toBe(true);
      const tooDeep = validateFilterTree(nestedNots(9), FIELDS);
      expect(errorList(tooDeep)).toEqual([`filter${'.not'.repeat(8)}:out_of_range`]);
    });

    it('measures depth through and / or groups too', () => {
      const deepGroups = (depth: number): FilterNode => {
        let node: FilterNode = leaf();
        for (let level = 1; level < depth; level++) node = level % 2 ? { and: [node] } : { or: [leaf(), node] };
        return node;
      };
      expect(validateFilterTree(deepGroups(8), FIELDS).ok).toBe(true);
      expect(errorList(validateFilterTree(deepGroups(9), FIELDS))).toEqual([expect.stringMatching(/:out_of_range$/)]);
    });

    it('stops early on hostile sizes', () => {
      const huge = { or: Array.from({ length: 1_000_000 }, () => leaf()) };
      expect(errorList(validateFilterTree(huge, FIELDS))).toEqual(['filter:out_of_range']);
      let deep: unknown = leaf();
      for (let level = 0; level < 100_000; level++) deep = { not: deep };
      expect(errorList(validateFilterTree(deep, FIELDS))).toEqual([`filter${'.not'.repeat(8)}:out_of_range`]);
    });

    describe(`the values of all conditions: at most ${FILTER_LIMITS.maxValueLength} characters together`, () => {
      const contains = (length: number): FilterNode => ({ field: 'notes', op: 'contains', value: 'x'.repeat(length) });
      const limit = FILTER_LIMITS.maxValueLength;

      it('accepts exactly the limit spread over many conditions and refuses one character more', () => {
        const spread = (extra: number): FilterNode => ({ or: [...Array.from({ length: 24 }, () => contains(limit / 25)), contains(limit / 25 + extra)] });
        expect(validateFilterTree(spread(0), FIELDS).ok).toBe(true);
        const refused = validateFilterTree(spread(1), FIELDS);
        expect(errorList(refused)).toEqual(['filter:out_of_range']);
        expect(refused.ok ? '' : refused.errors[0].message).toBe(`The values of a filter's conditions may have at most ${limit} characters in all.`);
      });

      it('refuses 25 text matches of 900 characters, well within the node limit', () => {
        expect(errorList(validateFilterTree({ or: Array.from({ length: 25 }, () => contains(900)) }, FIELDS))).toEqual(['filter:out_of_range']);
      });

      it('counts each text of an in list, and 100 ids still fit', () => {
        expect(validateFilterTree({ field: 'owner', op: 'in', value: Array.from({ length: 100 }, () => ID) }, FIELDS).ok).toBe(true);
        const texts = Array.from({ length: 20 }, (_, index) => `${index}`.padEnd(limit / 20, 'y'));
        expect(validateFilterTree({ field: 'title', op: 'in', value: texts }, FIELDS).ok).toBe(true);
        expect(errorList(validateFilterTree({ and: [{ field: 'title', op: 'in', value: texts }, contains(1)] }, FIELDS))).toEqual(['filter:out_of_range']);
      });
    });

    it('takes at most 100 values in in / notIn and at least one', () => {
      const values = (count: number) => Array.from({ length: count }, (_, index) => index);
      expect(validateFilterTree({ field: 'price', op: 'in', value: values(100) }, FIELDS).ok).toBe(true);
      expect(errorList(validateFilterTree({ field: 'price', op: 'notIn', value: values(101) }, FIELDS))).toEqual(['filter.value:too_long']);
      expect(errorList(validateFilterTree({ field: 'price', op: 'in', value: [] }, FIELDS))).toEqual(['filter.value:invalid_format']);
      expect(errorList(validateFilterTree({ field: 'price', op: 'in', value: 3 }, FIELDS))).toEqual(['filter.value:invalid_type']);
    });
  });

  it.each([
    ['lt on TEXT', 'title', 'lt', 'a'],
    ['contains on NUMBER', 'price', 'contains', 1],
    ['gt on BOOLEAN', 'active', 'gt', true],
    ['startsWith on SELECT', 'status', 'startsWith', 'o'],
    ['eq on MULTI_SELECT', 'labels', 'eq', 'open'],
    ['eq on a multiple RELATION', 'watchers', 'eq', ID],
    ['contains on a single RELATION', 'owner', 'contains', ID],
    ['eq on FILE', 'contract', 'eq', 'x'],
    ['contains on ATTACHMENTS', 'photos', 'contains', 'x'],
    ['contains on a NUMBER formula', 'total', 'contains', 1],
    ['an unknown operator', 'price', 'like', 1],
  ])('rejects %s', (_description, fieldKey, op, value) => {
    expect(errorList(validateFilterTree({ field: fieldKey, op, value }, FIELDS))).toEqual(['filter.op:invalid_option']);
  });

  it('rejects unknown and archived fields alike', () => {
    expect(errorList(validateFilterTree({ field: 'colour', op: 'eq', value: 'red' }, FIELDS))).toEqual(['filter.field:unknown_field']);
    expect(errorList(validateFilterTree({ field: 'legacy', op: 'eq', value: 'x' }, FIELDS))).toEqual(['filter.field:unknown_field']);
    expect(errorList(validateFilterTree({ field: 'constructor', op: 'isEmpty' }, FIELDS))).toEqual(['filter.field:unknown_field']);
    expect(errorList(validateFilterTree({ field: 42, op: 'eq', value: 1 }, FIELDS))).toEqual(['filter.field:invalid_type']);
  });

  it.each([
    ['a string for a NUMBER', { field: 'price', op: 'gt', value: '3' }, 'filter.value:invalid_type'],
    ['an impossible DATE', { field: 'due', op: 'eq', value: '2023-02-30' }, 'filter.value:invalid_format'],
    ['a DATETIME without zone', { field: 'starts_at', op: 'lt', value: '2024-01-01T00:00:00' }, 'filter.value:invalid_format'],
    ['an unknown option', { field: 'status', op: 'eq', value: 'archived' }, 'filter.value:invalid_option'],
    ['an unknown option in a list', { field: 'labels', op: 'in', value: ['open', 'nope'] }, 'filter.value[1]:invalid_option'],
    ['a non-UUID relation', { field: 'watchers', op: 'contains', value: 'user-1' }, 'filter.value:invalid_format'],
    ['a string for BOOLEAN', { field: 'active', op: 'eq', value: 'true' }, 'filter.value:invalid_type'],
    ['an empty text fragment', { field: 'notes', op: 'contains', value: '' }, 'filter.value:invalid_format'],
    ['text beyond the field length', { field: 'title', op: 'eq', value: 'x'.repeat(201) }, 'filter.value:too_long'],
    ['an invalid exact URL', { field: 'website', op: 'eq', value: 'not a url' }, 'filter.value:invalid_format'],
    ['a missing value', { field: 'price', op: 'eq' }, 'filter.value:required'],
    ['a null value', { field: 'price', op: 'eq', value: null }, 'filter.value:invalid_type'],
    ['a value for isEmpty', { field: 'price', op: 'isEmpty', value: 1 }, 'filter.value:invalid_format'],
    ['a null value for isNotEmpty', { field: 'price', op: 'isNotEmpty', value: null }, 'filter.value:invalid_format'],
    ['null inside a list', { field: 'price', op: 'in', value: [1, null] }, 'filter.value[1]:invalid_type'],
    ['NUL in a text value', { field: 'title', op: 'eq', value: 'a\u0000b' }, 'filter.value:invalid_format'],
    ['NUL in a fragment', { field: 'notes', op: 'contains', value: '\u0000' }, 'filter.value:invalid_format'],
    ['a lone surrogate in a fragment', { field: 'body', op: 'startsWith', value: 'x\ud800' }, 'filter.value:invalid_format'],
    ['a lone surrogate in a list', { field: 'title', op: 'in', value: ['ok', '\udc00'] }, 'filter.value[1]:invalid_format'],
    ['NUL in an exact email', { field: 'email', op: 'neq', value: 'a@example.com\u0000' }, 'filter.value:invalid_format'],
    ['NUL in a text formula', { field: 'summary', op: 'eq', value: 'A\u0000' }, 'filter.value:invalid_format'],
  ])('rejects %s', (_description, tree, expected) => {
    expect(errorList(validateFilterTree(tree, FIELDS))).toEqual([expected]);
  });

  it.each([
    ['null', null, 'filter:invalid_type'],
    ['an array', [leaf()], 'filter:invalid_type'],
    ['an empty object', {}, 'filter:invalid_format'],
    ['an empty and', { and: [] }, 'filter.and:invalid_format'],
    ['and that is not an array', { and: leaf() }, 'filter.and:invalid_type'],
    ['two group keys', { and: [leaf()], or: [leaf()] }, 'filter:invalid_format'],
    ['a group key next to a condition', { not: leaf(), field: 'price' }, 'filter:invalid_format'],
    ['extra condition keys', { field: 'price', op: 'eq', value: 1, mode: 'x' }, 'filter.mode:invalid_format'],
    ['a non-object child', { or: [leaf(), 'price = 1'] }, 'filter.or[1]:invalid_type'],
  ])('rejects %s', (_description, tree, expected) => {
    expect(errorList(validateFilterTree(tree, FIELDS))).toEqual([expected]);
  });

  it('reports every faulty condition with its path', () => {
    const tree = { and: [{ field: 'ghost', op: 'eq', value: 1 }, leaf(), { not: { field: 'price', op: 'contains', value: 1 } }] };
    expect(errorList(validateFilterTree(tree, FIELDS))).toEqual(['filter.and[0].field:unknown_field', 'filter.and[2].not.op:invalid_option']);
  });

  it('filters FORMULA fields by their result type', () => {
    expect(validateFilterTree({ field: 'total', op: 'gte', value: 10 }, FIELDS).ok).toBe(true);
    expect(validateFilterTree({ field: 'summary', op: 'startsWith', value: 'AB' }, FIELDS).ok).toBe(true);
    expect(errorList(validateFilterTree({ field: 'total', op: 'eq', value: 'ten' }, FIELDS))).toEqual(['filter.value:invalid_type']);
  });

  it('never throws, whatever the tree', () => {
    const keys = fc.constantFrom('and', 'or', 'not', 'field', 'op', 'value', '__proto__', 'constructor');
    fc.assert(
      fc.property(fc.anything({ key: fc.oneof(keys, fc.string()), withNullPrototype: true, withBoxedValues: true, withMap: true, withSparseArray: true, withBigInt: true }), (tree) => {
        const result = validateFilterTree(tree, FIELDS);
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts generated valid trees and is idempotent on its output', () => {
    const condition = fc.oneof(
      fc.record({ field: fc.constant('price'), op: fc.constantFrom('eq', 'lt', 'gte'), value: fc.integer() }),
      fc.record({ field: fc.constant('title'), op: fc.constantFrom('contains', 'startsWith'), value: fc.string({ minLength: 1, maxLength: 20 }) }),
      fc.record({ field: fc.constant('status'), op: fc.constant('in'), value: fc.uniqueArray(fc.constantFrom('open', 'done'), { minLength: 1 }) }),
      fc.record({ field: fc.constantFrom('notes', 'photos', 'labels'), op: fc.constantFrom('isEmpty', 'isNotEmpty') }),
    );
    const tree = fc.letrec<{ node: FilterNode }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', maxDepth: 6 },
        condition as fc.Arbitrary<FilterNode>,
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((children) => ({ and: children })),
        fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((children) => ({ or: children })),
        tie('node').map((child) => ({ not: child })),
      ),
    })).node;
    const countNodes = (node: FilterNode): number =>
      'and' in node ? 1 + node.and.reduce((sum, child) => sum + countNodes(child), 0)
      : 'or' in node ? 1 + node.or.reduce((sum, child) => sum + countNodes(child), 0)
      : 'not' in node ? 1 + countNodes(node.not)
      : 1;
    const depthOf = (node: FilterNode): number =>
      'and' in node ? 1 + Math.max(...node.and.map(depthOf))
      : 'or' in node ? 1 + Math.max(...node.or.map(depthOf))
      : 'not' in node ? 1 + depthOf(node.not)
      : 1;
    fc.assert(
      fc.property(tree, (generated) => {
        fc.pre(countNodes(generated) <= FILTER_LIMITS.maxNodes && depthOf(generated) <= FILTER_LIMITS.maxDepth);
        const result = validateFilterTree(generated, FIELDS);
        expect(result).toEqual({ ok: true, value: generated });
        if (result.ok) expect(validateFilterTree(result.value, FIELDS)).toEqual(result);
      }),
    );
  });
});
