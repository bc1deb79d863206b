import type { DataField } from '../data-models/types';

/** A model's fields as dataModels.fields.list answers them, for the import's tests. */
export function field(key: string, type: DataField['type'], extra: Partial<DataField> = {}): DataField {
  return { key, name: key, type, config: {}, required: false, position: 0, indexed: false, indexStatus: null, indexError: null, archivedAt: null, ...extra };
}

export const DEAL_FIELDS: DataField[] = [
  field('title', 'TEXT', { name: 'Title', required: true, position: 0 }),
  field('amount', 'NUMBER', { name: 'Amount', position: 1, config: { precision: 2 } }),
  field('stage', 'SELECT', {
    name: 'Stage',
    position: 2,
    config: {
      options: [
        { value: 'lead', label: 'Lead' },
        { value: 'won', label: 'Closed won' },
      ],
    },
  }),
  field('tags', 'MULTI_SELECT', { name: 'Tags', position: 3, config: { options: [{ value: 'a', label: 'Alpha' }, { value: 'b', label: 'Beta' }] } }),
  field('closed', 'BOOLEAN', { name: 'Closed', position: 4 }),
  field('due_date', 'DATE', { name: 'Due date', position: 5 }),
  field('email', 'EMAIL', { name: 'Contact email', position: 6 }),
  field('total', 'FORMULA', { name: 'Total', position: 7, config: { expression: 'amount * 2', resultType: 'NUMBER' } }),
];
