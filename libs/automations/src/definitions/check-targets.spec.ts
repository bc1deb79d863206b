import type { FieldDefinition } from '@mrp/field-validation';
import { targetProblems, templatedAt, type TargetModel } from './check-targets';

const field = (key: string, type: FieldDefinition['type'], config: Record<string, unknown> = {}, required = false): FieldDefinition => ({ key, type, config, required });
const deals: TargetModel = {
  key: 'deals',
  fields: [
    field('title', 'TEXT', {}, true),
    field('amount', 'NUMBER'),
    field('stage', 'SELECT', { options: [{ value: 'won' }, { value: 'lost' }] }),
    field('tags', 'MULTI_SELECT', { options: [{ value: 'a' }, { value: 'b' }] }),
  ],
};
const models = new Map([['deals', deals]]);

describe('templatedAt', () => {
  it('finds a placeholder at the path, inside the value there, or on the way to it', () => {
    const data = { amount: '{{input.amount}}', tags: ['a', 'x {{now}}'], stage: 'won', nested: { at: '{{input.x}}' } };
    expect(templatedAt(data, 'amount')).toBe(true);
    expect(templatedAt(data, 'tags[1]')).toBe(true);
    expect(templatedAt(data, 'tags')).toBe(true);
    expect(templatedAt(data, 'tags[0]')).toBe(false);
    expect(templatedAt(data, 'stage')).toBe(false);
    expect(templatedAt(data, 'nested.at.deeper')).toBe(true);
    expect(templatedAt(data, 'missing')).toBe(false);
    expect(templatedAt({ amount: '{{ not a path' }, 'amount')).toBe(false);
  });
});

describe('targetProblems', () => {
  it('names a missing model, a missing field and a refused value by their paths', () => {
    expect(
      targetProblems(
        [
          { type: 'create-record', model: 'dealz', data: { title: 'x' } },
          { type: 'update-record', model: 'deals', recordId: '{{input.id}}', data: { amout: 1, stage: 'maybe' } },
          { type: 'notify', userIds: ['u'], title: 'hi' },
        ],
        models,
      ),
    ).toEqual([
      { field: 'actions[0].model', code: 'not_found', message: 'The organization has no model "dealz"' },
      { field: 'actions[1].data.amout', code: 'unknown_field', message: 'Unknown field "amout".' },
      { field: 'actions[1].data.stage', code: 'invalid_option', message: expect.any(String) },
    ]);
  });

  it('takes a template as valid for any type, and as present for a required field', () => {
    expect(
      targetProblems([{ type: 'create-record', model: 'deals', data: { title: '{{input.title}}', amount: '{{input.amount}}', tags: ['a', '{{input.tag}}'] } }], models),
    ).toEqual([]);
  });

  it('asks a created record for its required fields, an updated one only for what it changes', () => {
    expect(targetProblems([{ type: 'create-record', model: 'deals', data: { amount: 2 } }], models).map((problem) => [problem.field, problem.code])).toEqual([
      ['actions[0].data.title', 'required'],
    ]);
    expect(targetProblems([{ type: 'update-record', model: 'deals', recordId: 'r', data: { amount: 2 } }], models)).toEqual([]);
  });

  it("checks an update's filter against the model, with templated operands left to the run", () => {
    const filtered = (filter: Record<string, unknown>) => targetProblems([{ type: 'update-record', model: 'deals', filter, data: { stage: 'won' } }], models);
    expect(filtered({ field: 'amount', op: 'eq', value: '{{input.amount}}' })).toEqual([]);
    expect(filtered({ field: 'amount', op: 'eq', value: 'lots' }).map((problem) => problem.field)).toEqual(['actions[0].filter.value']);
    expect(filtered({ field: 'sauce', op: 'eq', value: 1 }).map((problem) => problem.field)).toEqual(['actions[0].filter.field']);
  });
});
