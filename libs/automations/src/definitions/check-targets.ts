import { validateFilterTree, validateRecordData, type FieldDefinition, type FieldError } from '@mrp/field-validation';
import type { ErrorDetail } from '@mrp/platform';
import type { AutomationAction } from './automation-schemas';
import { holdsTemplate } from './templates';

/** A live model's fields as the data-models catalog describes them. */
export interface TargetModel {
  key: string;
  fields: FieldDefinition[];
}

/** The path segments of a field-validation path: `tags[1]` -> ['tags', 1], `filter.and[0].value` -> ['filter', 'and', 0, 'value']. */
function segmentsOf(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) segments.push(match[2] !== undefined ? Number(match[2]) : match[1]);
  return segments;
}

/**
 * Whether the value at `path` inside `root` (or a value on the way to it) holds a template: it is
 * rendered when the action runs, so a refusal of it says nothing yet.
 */
export function templatedAt(root: unknown, path: string): boolean {
  let current: unknown = root;
  for (const segment of segmentsOf(path)) {
    if (typeof current === 'string') return holdsTemplate(current);
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return false;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return holdsTemplate(current);
}

/** A refusal with its path under `prefix`, unless what it refuses is a template. */
function concerns(error: FieldError, value: unknown, prefix: string): ErrorDetail | undefined {
  if (error.field === '$') return { field: prefix, code: error.code, message: error.message };
  if (templatedAt(value, error.field)) return undefined;
  return { field: `${prefix}.${error.field}`, code: error.code, message: error.message };
}

/**
 * Problems of the record actions against the organization's live models, with their paths: a
 * model or a field that does not exist, a value its field's type refuses, a filter the model
 * cannot answer. The rules are field-validation's, the ones the record procedures apply when the
 * action runs; a value holding a template is taken as valid until the run renders it.
 */
export function targetProblems(actions: readonly AutomationAction[], models: ReadonlyMap<string, TargetModel>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  actions.forEach((action, index) => {
    if (action.type === 'notify') return;
    const at = `actions[${index}]`;
    const model = models.get(action.model);
    if (!model) {
      problems.push({ field: `${at}.model`, code: 'not_found', message: `The organization has no model "${action.model}"` });
      return;
    }
    const data = validateRecordData(model.fields, action.data, { mode: action.type === 'create-record' ? 'create' : 'update' });
    if (!data.ok) {
      for (const error of data.errors) {
        const problem = concerns(error, action.data, `${at}.data`);
        if (problem) problems.push(problem);
      }
    }
    if (action.type === 'update-record' && action.filter !== undefined) {
      const filter = validateFilterTree(action.filter, model.fields);
      if (!filter.ok) {
        for (const error of filter.errors) {
          // Filter paths start at `filter`, the action's own property.
          const problem = concerns({ ...error, field: error.field.replace(/^filter\.?/, '') || '$' }, action.filter, `${at}.filter`);
          if (problem) problems.push(problem);
        }
      }
    }
  });
  return problems;
}
