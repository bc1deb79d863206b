import type { OrganizationWithKey } from './public-api-fixtures';

/** A model with one field of each of the 15 field types, configured so that each narrows its schema. */
export const EVERY_TYPE_MODEL = { key: 'invoice', name: 'Invoice', description: 'Bills sent to customers' };

export const EVERY_TYPE_FIELDS = [
  { key: 'notes', name: 'Notes', type: 'LONG_TEXT', config: { maxLength: 5000 } },
  { key: 'body', name: 'Body', type: 'RICH_TEXT' },
  { key: 'score', name: 'Score', type: 'NUMBER', config: { min: 0, max: 100 }, required: true },
  { key: 'quantity', name: 'Quantity', type: 'NUMBER', config: { precision: 0 } },
  { key: 'paid', name: 'Paid', type: 'BOOLEAN' },
  { key: 'due_on', name: 'Due on', type: 'DATE' },
  { key: 'sent_at', name: 'Sent at', type: 'DATETIME' },
  { key: 'status', name: 'Status', type: 'SELECT', config: { options: [{ value: 'draft', label: 'Draft' }, { value: 'sent' }] } },
  { key: 'labels', name: 'Labels', type: 'MULTI_SELECT', config: { options: [{ value: 'urgent' }, { value: 'vip' }], maxSelected: 2 } },
  { key: 'customer', name: 'Customer', type: 'RELATION', config: { targetModel: 'tasks' } },
  { key: 'website', name: 'Website', type: 'URL' },
  { key: 'contact', name: 'Contact', type: 'EMAIL' },
  { key: 'doubled', name: 'Doubled score', type: 'FORMULA', config: { expression: '{score} * 2', resultType: 'NUMBER' } },
  { key: 'contract', name: 'Contract', type: 'FILE', config: { allowedMimeTypes: ['application/pdf'] } },
  { key: 'photos', name: 'Photos', type: 'ATTACHMENTS', config: { maxFiles: 3, allowedMimeTypes: ['image/*'] } },
] as const;

/** Defines the every-type model in the organization (which must already have the `tasks` model it relates to). */
export async function createEveryTypeModel(org: OrganizationWithKey): Promise<void> {
  await org.rpc('dataModels.create', EVERY_TYPE_MODEL);
  for (const field of EVERY_TYPE_FIELDS) await org.rpc('dataModels.fields.create', { model: EVERY_TYPE_MODEL.key, ...field });
}
