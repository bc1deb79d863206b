import { validationFailed, type ErrorDetail } from '@mrp/platform';
import { subscriptionProblem } from '@mrp/events';
import type { ActionInputValue, AutomationAction, AutomationTrigger, TriggerInputValue } from './automation-schemas';
import { scheduleProblem } from './schedule';
import { templateProblems, type TemplateRoot } from './templates';
import { assertStorableJson } from './storable-json';
import { targetProblems, type TargetModel } from './check-targets';

/** An action's templates and values together: a definition is data kept in a row, not a document store. */
const MAX_ACTIONS_JSON_BYTES = 64 * 1024;
const MODEL_KEY = /^[a-z][a-z0-9_]{0,62}$/;

type Problems = ErrorDetail[];

const PROPERTIES_OF: Record<TriggerInputValue['type'], ReadonlyArray<keyof TriggerInputValue>> = {
  http: [],
  schedule: ['cron', 'timezone'],
  event: ['eventType', 'includeOwnRuns'],
};

function checkTrigger(input: TriggerInputValue, problems: Problems): AutomationTrigger {
  const allowed = new Set<string>(['type', ...PROPERTIES_OF[input.type]]);
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) problems.push({ field: `trigger.${key}`, code: 'unknown_field', message: `is not a property of a ${input.type} trigger` });
  }
  if (input.type === 'schedule') {
    if (input.cron === undefined) problems.push({ field: 'trigger.cron', code: 'required', message: 'a schedule trigger needs a cron expression' });
    if (input.timezone === undefined) problems.push({ field: 'trigger.timezone', code: 'required', message: 'a schedule trigger needs a time zone' });
    if (input.cron !== undefined && input.timezone !== undefined) {
      const problem = scheduleProblem(input.cron, input.timezone);
      if (problem) problems.push({ field: `trigger.${problem.field}`, code: 'invalid_format', message: problem.message });
    }
    return { type: 'schedule', cron: (input.cron ?? '').trim().replace(/\s+/g, ' '), timezone: input.timezone ?? '' };
  }
  if (input.type === 'event') {
    if (input.eventType === undefined) {
      problems.push({ field: 'trigger.eventType', code: 'required', message: 'an event trigger needs an event type' });
    } else {
      const problem = input.eventType.startsWith('notification.')
        ? 'notifications are personal: no automation is triggered by them'
        : subscriptionProblem(input.eventType);
      if (problem) problems.push({ field: 'trigger.eventType', code: 'invalid_format', message: problem });
    }
    return { type: 'event', eventType: input.eventType ?? '', includeOwnRuns: input.includeOwnRuns ?? false };
  }
  return { type: 'http' };
}

const ACTION_PROPERTIES: Record<ActionInputValue['type'], { required: string[]; optional: string[] }> = {
  'create-record': { required: ['model', 'data'], optional: [] },
  'update-record': { required: ['model', 'data'], optional: ['recordId', 'filter'] },
  notify: { required: ['title'], optional: ['userIds', 'role', 'body'] },
};

function checkAction(input: ActionInputValue, at: string, roots: ReadonlySet<TemplateRoot>, problems: Problems): AutomationAction {
  const { required, optional } = ACTION_PROPERTIES[input.type];
  const allowed = new Set(['type', ...required, ...optional]);
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) problems.push({ field: `${at}.${key}`, code: 'unknown_field', message: `is not a property of a ${input.type} action` });
  }
  for (const key of required) {
    if (input[key as keyof ActionInputValue] === undefined) {
      problems.push({ field: `${at}.${key}`, code: 'required', message: `a ${input.type} action needs ${key}` });
    }
  }
  if (input.model !== undefined && !MODEL_KEY.test(input.model)) {
    problems.push({ field: `${at}.model`, code: 'invalid_format', message: 'is not a model key' });
  }
  if (input.type === 'update-record' && (input.recordId === undefined) === (input.filter === undefined)) {
    problems.push({ field: at, code: 'required', message: 'an update-record action names its record by exactly one of recordId or filter' });
  }
  if (input.type === 'notify' && input.userIds === undefined && input.role === undefined) {
    problems.push({ field: at, code: 'required', message: 'a notify action needs userIds, a role or both' });
  }
  for (const key of ['data', 'recordId', 'filter', 'title', 'body'] as const) {
    for (const [field, message] of templateProblems(input[key], `${at}.${key}`, roots)) problems.push({ field, code: 'invalid_format', message });
  }
  const { type, ...rest } = input;
  return { type, ...rest } as AutomationAction;
}

/**
 * The trigger and actions as stored, or `validation_failed` with every problem and its path.
 * Templates may use `event.` only with an event trigger: nothing else has an event to read.
 * With `models` (the organization's live models by key), record actions are also checked against
 * them; an action whose own shape is already refused is not.
 */
export function checkDefinition(
  trigger: TriggerInputValue,
  actions: readonly ActionInputValue[],
  models?: ReadonlyMap<string, TargetModel>,
): { trigger: AutomationTrigger; actions: AutomationAction[] } {
  assertStorableJson(actions, 'actions');
  const problems: Problems = [];
  const checkedTrigger = checkTrigger(trigger, problems);
  const roots = new Set<TemplateRoot>(checkedTrigger.type === 'event' ? ['input', 'event', 'now'] : ['input', 'now']);
  const checkedActions = actions.map((action, index) => checkAction(action, `actions[${index}]`, roots, problems));
  if (models) {
    const refused = (index: number) => problems.some((problem) => problem.field === `actions[${index}]` || problem.field.startsWith(`actions[${index}].`));
    const checkable = checkedActions.map((action, index) => (refused(index) ? ({ type: 'notify', title: '' } as const) : action));
    problems.push(...targetProblems(checkable, models));
  }
  if (Buffer.byteLength(JSON.stringify(checkedActions)) > MAX_ACTIONS_JSON_BYTES) {
    problems.push({ field: 'actions', code: 'too_long', message: `the actions take more than ${MAX_ACTIONS_JSON_BYTES / 1024} KiB` });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return { trigger: checkedTrigger, actions: checkedActions };
}
