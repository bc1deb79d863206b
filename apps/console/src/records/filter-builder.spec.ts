import { validateFilterTree } from '@mrp/field-validation';
import { describe, expect, it } from 'vitest';
import type { DataField } from '../data-models/types';
import { buildFilterTree, checkFilter, filterTargets, newCondition, newGroup, type ConditionDraft, type FilterTarget } from './filter-builder';

function field(key: string, type: DataField['type'], config: Record<string, unknown> = {}, position = 1): DataField {
  return { key, name: key, type, config, required: false, position, indexed: false, indexStatus: null, indexError: null, archivedAt: null };
}

const FIELDS: DataField[] = [
  field('title', 'TEXT', { maxLength: 1000 }, 0),
  field('email', 'EMAIL'),
  field('score', 'NUMBER', {}, 2),
  field('status', 'SELECT', { options: [{ value: 'open', label: 'Open' }, { value: 'won', label: 'Won' }] }, 3),
  field('tags', 'MULTI_SELECT', { options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }] }, 4),
  field('company', 'RELATION', { targetModel: 'companies', multiple: false }, 5),
  field('vip', 'BOOLEAN', {}, 6),
  field('due', 'DATETIME', {}, 7),
  field('contract', 'FILE', {}, 8),
  field('total', 'FORMULA', { expression: '{score} * 2', resultType: 'NUMBER' }, 9),
];
const TARGETS = filterTargets(FIELDS);

function target(key: string): FilterTarget {
  const found = TARGETS.find((candidate) => candidate.key === key);
  if (!found) throw new Error(`no target ${key}`);
  return found;
}

function condition(key: string, op: ConditionDraft['op'], value = '', values: string[] = []): ConditionDraft {
  return { ...newCondition(target(key)), op, value, values };
}

describe('the filter targets', () => {
  it("offer per field exactly field-validation's operators for its type", () => {
    expect(target('email').ops).toEqual(['eq', 'neq', 'contains', 'startsWith', 'in', 'notIn', 'isEmpty', 'isNotEmpty']);
    expect(target('score').ops).toContain('gte');
    expect(target('vip').ops).toEqual(['eq', 'neq', 'isEmpty', 'isNotEmpty']);
    expect(target('tags').ops).toEqual(['contains', 'in', 'isEmpty', 'isNotEmpty']);
    expect(target('company').ops).toEqual(['eq', 'neq', 'in', 'notIn', 'isEmpty', 'isNotEmpty']);
    expect(target('contract').ops).toEqual(['isEmpty', 'isNotEmpty']);
    expect(target('total').operand).toBe('number');
  });

  it('add the columns every record has, title once', () => {
    expect(TARGETS.map((candidate) => candidate.key)).toEqual(['title', 'email', 'score', 'status', 'tags', 'company', 'vip', 'due', 'contract', 'total', 'createdAt', 'updatedAt', 'id']);
  });
});

describe('buildFilterTree', () => {
  it('gives no filter for an empty builder', () => {
    expect(buildFilterTree(newGroup('all'), TARGETS)).toBeUndefined();
  });

  it('gives a lone condition of a top-level "all" as the condition itself, its value typed for the field', () => {
    expect(buildFilterTree(newGroup('all', [condition('score', 'gte', '50')]), TARGETS)).toEqual({ field: 'score', op: 'gte', value: 50 });
  });

  it('nests and / or groups and turns "none of" into not (or …)', () => {
    const root = newGroup('all', [
      condition('email', 'contains', '@example.com'),
      newGroup('any', [condition('status', 'eq', 'open'), condition('vip', 'eq', 'true')]),
      newGroup('none', [condition('tags', 'in', '', ['a', 'b']), condition('contract', 'isEmpty', 'ignored')]),
    ]);
    expect(buildFilterTree(root, TARGETS)).toEqual({
      and: [
        { field: 'email', op: 'contains', value: '@example.com' },
        { or: [{ field: 'status', op: 'eq', value: 'open' }, { field: 'vip', op: 'eq', value: true }] },
        { not: { or: [{ field: 'tags', op: 'in', value: ['a', 'b'] }, { field: 'contract', op: 'isEmpty' }] } },
      ],
    });
  });

  it('splits the values of in / notIn on commas and types each one', () => {
    const root = newGroup('any', [condition('score', 'in', '1, 2.5 ,3'), condition('email', 'notIn', 'a@example.com,b@example.com')]);
    expect(buildFilterTree(root, TARGETS)).toEqual({
      or: [
        { field: 'score', op: 'in', value: [1, 2.5, 3] },
        { field: 'email', op: 'notIn', value: ['a@example.com', 'b@example.com'] },
      ],
    });
  });

  it('drops empty groups', () => {
    const root = newGroup('all', [newGroup('any'), condition('title', 'startsWith', 'Ada'), newGroup('all', [newGroup('any')])]);
    expect(buildFilterTree(root, TARGETS)).toEqual({ field: 'title', op: 'startsWith', value: 'Ada' });
  });

  it('sends a date-time typed in the local zone as UTC', () => {
    const tree = buildFilterTree(newGroup('all', [condition('due', 'lt', '2026-03-01T09:30')]), TARGETS);
    expect(tree).toEqual({ field: 'due', op: 'lt', value: new Date('2026-03-01T09:30').toISOString() });
  });

  it('builds only trees the server accepts for well-filled conditions', () => {
    const root = newGroup('all', [condition('company', 'eq', '0190aaaa-0000-7000-8000-0000000000aa'), newGroup('any', [condition('createdAt', 'gte', '2026-01-01T00:00')])]);
    expect(validateFilterTree(buildFilterTree(root, TARGETS), FIELDS).ok).toBe(true);
  });
});

describe('checkFilter', () => {
  it("refuses what the server would, with field-validation's message, at the condition it concerns", () => {
    const badNumber = condition('score', 'gt', 'lots');
    const badEmail = condition('email', 'eq', 'not-an-address');
    const fine = condition('title', 'contains', 'x');
    const root = newGroup('all', [fine, newGroup('any', [badNumber, badEmail])]);
    const checked = checkFilter(root, TARGETS, FIELDS);
    expect(checked.tree).toBeUndefined();
    const server = validateFilterTree(buildFilterTree(root, TARGETS), FIELDS);
    expect(server.ok).toBe(false);
    const messages = server.ok ? [] : server.errors.map((error) => error.message);
    expect(checked.errors).toEqual({ [badNumber.id]: messages[0], [badEmail.id]: messages[1] });
    expect(checked.errors[badNumber.id]).toBe('Must be a number, not text: use digits and a decimal point, e.g. 1200.50.');
  });

  it('places the error of a lone condition on it', () => {
    const lone = condition('status', 'eq', '');
    const checked = checkFilter(newGroup('all', [lone]), TARGETS, FIELDS);
    expect(checked.errors[lone.id]).toBe('Must be one of the configured options.');
  });

  it("speaks a date picker's language, not the rule's YYYY-MM-DD, when the picker is left empty or half filled", () => {
    const fields = [...FIELDS, field('starts_on', 'DATE', {}, 10)];
    const targets = filterTargets(fields);
    const day = { ...newCondition(targets.find((candidate) => candidate.key === 'starts_on')!), op: 'eq' as const, value: '' };
    const moment = condition('due', 'gt', '');
    const checked = checkFilter(newGroup('all', [day, moment]), targets, fields);
    expect(checked.errors).toEqual({ [day.id]: 'Choose a whole date: day, month and year.', [moment.id]: 'Choose a whole date and time.' });
  });

  it('keeps the rule’s own words for a typed list of dates, whose input says the shape it takes', () => {
    const fields = [...FIELDS, field('starts_on', 'DATE', {}, 10)];
    const targets = filterTargets(fields);
    const days = { ...newCondition(targets.find((candidate) => candidate.key === 'starts_on')!), op: 'in' as const, value: '12/31/2026' };
    expect(checkFilter(newGroup('all', [days]), targets, fields).errors[days.id]).toBe('Must be a real calendar date formatted YYYY-MM-DD.');
  });

  it('gives the normalised tree when everything passes', () => {
    const checked = checkFilter(newGroup('all', [condition('email', 'eq', 'Ada@Example.com')]), TARGETS, FIELDS);
    expect(checked.errors).toEqual({});
    expect(checked.tree).toMatchObject({ field: 'email', op: 'eq' });
  });
});
