import { DomainError, notFound } from '@mrp/platform';
import type { ActionResult, AutomationAction } from '../definitions/automation-schemas';
import { renderTemplate, type TemplateContext } from '../definitions/templates';

/** Runs a procedure as the run's owner, inside the run's transaction. */
export type ProcedureCall = <T>(name: string, input: unknown) => Promise<T>;

type Outcome = Pick<ActionResult, 'recordId' | 'notified'>;

/** A message is text whatever its placeholders hold. */
function renderText(template: string, context: TemplateContext): string {
  const value = renderTemplate(template, context);
  return typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value);
}

interface RecordOutput {
  id: string;
  model: string;
}

async function recordToUpdate(action: Extract<AutomationAction, { type: 'update-record' }>, context: TemplateContext, call: ProcedureCall): Promise<string> {
  if (action.recordId !== undefined) {
    const id = renderTemplate(action.recordId, context);
    if (typeof id !== 'string' || id.length === 0) {
      throw new DomainError('validation_failed', 'recordId did not render to a record id', [
        { field: 'recordId', code: 'invalid_type', message: `rendered to ${JSON.stringify(id)}` },
      ]);
    }
    const record = await call<RecordOutput>('records.get', { id });
    if (record.model !== action.model) throw notFound(`Record ${id} of model ${action.model}`);
    return record.id;
  }
  const { items } = await call<{ items: RecordOutput[] }>('records.list', { model: action.model, filter: renderTemplate(action.filter, context), limit: 2 });
  if (items.length === 0) throw notFound(`A record of model ${action.model} matching the filter`);
  if (items.length > 1) throw new DomainError('conflict', `The filter matches more than one record of model ${action.model}; it must match exactly one`);
  return items[0].id;
}

/**
 * One action, through the same procedure a person would call: `records.create`, `records.update`
 * (found with `records.get` or `records.list`) or `notifications.send`. Their permission checks,
 * validation, row-level access and events apply as they are; values are rendered from templates
 * first, as data.
 */
export async function runAction(action: AutomationAction, context: TemplateContext, call: ProcedureCall): Promise<Outcome> {
  switch (action.type) {
    case 'create-record': {
      const record = await call<RecordOutput>('records.create', { model: action.model, data: renderTemplate(action.data, context) });
      return { recordId: record.id };
    }
    case 'update-record': {
      const id = await recordToUpdate(action, context, call);
      const record = await call<RecordOutput>('records.update', { id, data: renderTemplate(action.data, context) });
      return { recordId: record.id };
    }
    case 'notify': {
      const sent = await call<{ notified: number }>('notifications.send', {
        ...(action.userIds ? { userIds: action.userIds } : {}),
        ...(action.role ? { role: action.role } : {}),
        title: renderText(action.title, context),
        ...(action.body !== undefined ? { body: renderText(action.body, context) } : {}),
      });
      return { notified: sent.notified };
    }
  }
}
