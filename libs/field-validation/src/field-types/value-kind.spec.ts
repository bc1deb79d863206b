import { FIELD_TYPES, type FieldType } from '../core/field-types';
import { valueKind, type ValueKind } from '../index';

/** Each field type's handler declares the kind of its values; every caller reads it from there. */
describe('valueKind', () => {
  const kinds: Record<FieldType, ValueKind> = {
    TEXT: 'text',
    LONG_TEXT: 'text',
    RICH_TEXT: 'text',
    URL: 'text',
    EMAIL: 'text',
    SELECT: 'text',
    MULTI_SELECT: 'list',
    RELATION: 'text',
    NUMBER: 'number',
    BOOLEAN: 'boolean',
    DATE: 'date',
    DATETIME: 'datetime',
    FORMULA: 'number',
    FILE: 'object',
    ATTACHMENTS: 'object',
  };

  it.each(FIELD_TYPES.map((type) => [type] as const))('declares the kind of a %s value', (type) => {
    const config = type === 'RELATION' ? { targetModel: 'accounts' } : type === 'FORMULA' ? { expression: '1', resultType: 'NUMBER' } : {};
    expect(valueKind({ type, config })).toBe(kinds[type]);
  });

  it('makes a multiple RELATION a list', () => {
    expect(valueKind({ type: 'RELATION', config: { targetModel: 'accounts', multiple: true } })).toBe('list');
  });

  it("gives a FORMULA its result type's kind, and an unknown result type none to compare", () => {
    expect(valueKind({ type: 'FORMULA', config: { resultType: 'TEXT' } })).toBe('text');
    expect(valueKind({ type: 'FORMULA', config: { resultType: 'BOOLEAN' } })).toBe('boolean');
    expect(valueKind({ type: 'FORMULA', config: { resultType: 'DATE' } })).toBe('date');
    expect(valueKind({ type: 'FORMULA', config: { resultType: 'SOMETHING' } })).toBe('object');
  });
});
