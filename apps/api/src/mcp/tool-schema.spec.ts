import { Type } from '@sinclair/typebox';
import { defineProcedure } from '@mrp/platform';
import { toolInputSchema } from './tool-schema';

const procedure = defineProcedure({
  name: 'things.write',
  summary: 'A procedure to cut tool schemas from',
  scope: 'organization',
  permission: 'records.create',
  input: Type.Object(
    {
      model: Type.String({ minLength: 1, maxLength: 63 }),
      items: Type.Array(Type.String(), { minItems: 1, maxItems: 1000 }),
      few: Type.Optional(Type.Array(Type.String(), { maxItems: 10 })),
      hard: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  handler: async () => ({}),
});

describe('toolInputSchema', () => {
  it("keeps the procedure's own property schemas, as plain JSON, and closes the object", () => {
    const schema = toolInputSchema(procedure);
    expect(schema).toEqual({
      type: 'object',
      properties: JSON.parse(JSON.stringify(procedure.input.properties)),
      required: ['model', 'items'],
      additionalProperties: false,
    });
    expect(Object.getOwnPropertySymbols(schema.properties['model'])).toEqual([]);
  });

  it('offers only the picked properties, and requires only those of them the procedure requires, plus its own', () => {
    const schema = toolInputSchema(procedure, { pick: ['model', 'hard'], require: ['hard'] });
    expect(Object.keys(schema.properties)).toEqual(['model', 'hard']);
    expect(schema.required).toEqual(['model', 'hard']);
  });

  it('narrows maxItems to the tool ceiling, never widens it', () => {
    const schema = toolInputSchema(procedure, { maxItems: { items: 100, few: 100 } });
    expect(schema.properties['items']).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(schema.properties['few']).toMatchObject({ maxItems: 10 });
  });

  it('adds the door\'s own properties beside the procedure\'s', () => {
    const schema = toolInputSchema(procedure, { extra: { idempotencyKey: { type: 'string' } } });
    expect(schema.properties['idempotencyKey']).toEqual({ type: 'string' });
    expect(schema.required).toEqual(['model', 'items']);
  });

  it('fails at start-up when the tool names what the procedure does not take', () => {
    expect(() => toolInputSchema(procedure, { pick: ['model', 'nothing'] })).toThrow(/things.write: the procedure has no input property "nothing"/);
    expect(() => toolInputSchema(procedure, { maxItems: { nothing: 5 } })).toThrow(/no property "nothing"/);
    expect(() => toolInputSchema(procedure, { extra: { model: { type: 'string' } } })).toThrow(/"model" is already a procedure property/);
    expect(() => toolInputSchema(procedure, { pick: ['model'], require: ['hard'] })).toThrow(/cannot require "hard"/);
  });
});
