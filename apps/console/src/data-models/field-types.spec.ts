import { FIELD_TYPES, type FieldType } from '@mrp/field-validation';
import { describe, expect, it } from 'vitest';
import { isIndexable, isSortable } from './field-types';

const CONFIGS: Partial<Record<FieldType, Record<string, unknown>>> = {
  SELECT: { options: [{ value: 'a' }] },
  MULTI_SELECT: { options: [{ value: 'a' }] },
  RELATION: { targetModel: 'customers' },
  FORMULA: { expression: '1', resultType: 'NUMBER' },
};
const field = (type: FieldType, extra: Record<string, unknown> = {}) => ({ type, config: { ...CONFIGS[type], ...extra } });

describe('what a field type allows', () => {
  it('sorts by one value per record: not by lists (multiple selects and relations) nor files', () => {
    expect(FIELD_TYPES.filter((type) => !isSortable(field(type)))).toEqual(['MULTI_SELECT', 'FILE', 'ATTACHMENTS']);
    expect(isSortable(field('RELATION', { multiple: true }))).toBe(false);
  });

  it('indexes every type but files, a multiple relation and a formula of any result type included', () => {
    expect(FIELD_TYPES.filter((type) => !isIndexable(field(type)))).toEqual(['FILE', 'ATTACHMENTS']);
    expect(isIndexable(field('RELATION', { multiple: true }))).toBe(true);
    expect(['NUMBER', 'TEXT', 'BOOLEAN', 'DATE'].every((resultType) => isIndexable(field('FORMULA', { resultType })))).toBe(true);
  });
});
