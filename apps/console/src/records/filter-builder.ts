import {
  opsForField,
  SYSTEM_FILTER_FIELDS,
  validateFilterTree,
  type FieldError,
  type FilterNode,
  type FilterOp,
  valueKind,
} from '@mrp/field-validation';
import { liveFields } from '../data-models/field-types';
import { parseLocaleNumber } from '../forms/locale-number';
import type { DataField } from '../data-models/types';

/** How a condition's value is entered and what it becomes in the tree. */
export type OperandKind = 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'option' | 'id' | 'none';

/** Something a condition can test: a model field or a column every record has. */
export interface FilterTarget {
  key: string;
  label: string;
  ops: readonly FilterOp[];
  operand: OperandKind;
  /** For SELECT and MULTI_SELECT. */
  options?: Array<{ value: string; label: string }>;
}

export interface ConditionDraft {
  kind: 'condition';
  id: string;
  field: string;
  op: FilterOp;
  /** One value as typed; for `in` / `notIn` of free values, comma-separated. */
  value: string;
  /** The chosen values of `in` / `notIn` on option fields. */
  values: string[];
}

/** all = and, any = or, none = not (or …): "none of these holds". */
export type GroupMode = 'all' | 'any' | 'none';

export interface GroupDraft {
  kind: 'group';
  id: string;
  mode: GroupMode;
  children: Array<ConditionDraft | GroupDraft>;
}

export const OP_LABELS: Readonly<Record<FilterOp, string>> = {
  eq: 'is',
  neq: 'is not',
  lt: 'is less than',
  lte: 'is at most',
  gt: 'is greater than',
  gte: 'is at least',
  contains: 'contains',
  startsWith: 'starts with',
  in: 'is any of',
  notIn: 'is none of',
  isEmpty: 'is empty',
  isNotEmpty: 'is not empty',
};

/**
 * The input a condition on the field offers: a choice for options and records, else an input for
 * its value kind (field-validation's, declared by each field type); files take no operand.
 */
function operandOf(field: DataField): OperandKind {
  if (field.type === 'SELECT' || field.type === 'MULTI_SELECT') return 'option';
  if (field.type === 'RELATION') return 'id';
  const kind = valueKind(field);
  return kind === 'object' ? 'none' : kind === 'list' ? 'text' : kind;
}

/** The model's live fields (title first, as the system column) and the record's own columns. */
export function filterTargets(fields: readonly DataField[]): FilterTarget[] {
  const system: FilterTarget[] = [
    { key: 'title', label: 'Title', ops: SYSTEM_FILTER_FIELDS.title.ops, operand: 'text' },
  ];
  const modelFields = liveFields(fields)
    .filter((field) => field.key !== 'title')
    .map((field): FilterTarget => {
      const options = Array.isArray(field.config['options'])
        ? (field.config['options'] as Array<{ value: string; label?: string }>).map((option) => ({ value: option.value, label: option.label ?? option.value }))
        : undefined;
      return { key: field.key, label: field.name, ops: opsForField(field), operand: operandOf(field), ...(options ? { options } : {}) };
    });
  return [
    ...system,
    ...modelFields,
    { key: 'createdAt', label: 'Created', ops: SYSTEM_FILTER_FIELDS.createdAt.ops, operand: 'datetime' },
    { key: 'updatedAt', label: 'Updated', ops: SYSTEM_FILTER_FIELDS.updatedAt.ops, operand: 'datetime' },
    { key: 'id', label: 'Record id', ops: SYSTEM_FILTER_FIELDS.id.ops, operand: 'id' },
  ];
}

let nextDraftId = 0;
const draftId = () => `f${++nextDraftId}`;

export function newCondition(target: FilterTarget): ConditionDraft {
  return { kind: 'condition', id: draftId(), field: target.key, op: target.ops[0] ?? 'eq', value: '', values: [] };
}

export function newGroup(mode: GroupMode = 'all', children: GroupDraft['children'] = []): GroupDraft {
  return { kind: 'group', id: draftId(), mode, children };
}

export const takesNoValue = (op: FilterOp) => op === 'isEmpty' || op === 'isNotEmpty';
export const takesList = (op: FilterOp) => op === 'in' || op === 'notIn';

/**
 * One typed value as the tree carries it. Text that is not a number (or a date) is passed on as
 * typed, so the filter rules refuse it in their own words.
 */
function operandValue(kind: OperandKind, text: string): unknown {
  switch (kind) {
    case 'number':
      return parseLocaleNumber(text) ?? text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'datetime': {
      // A datetime-local value is in the reader's zone; the tree carries UTC.
      const date = new Date(text);
      return text === '' || Number.isNaN(date.getTime()) ? text : date.toISOString();
    }
    case 'id':
      return text.trim();
    default:
      return text;
  }
}

function conditionNode(condition: ConditionDraft, target: FilterTarget | undefined): FilterNode {
  const { field, op } = condition;
  if (takesNoValue(op)) return { field, op };
  const kind = target?.operand ?? 'text';
  if (takesList(op)) {
    const items =
      kind === 'option'
        ? condition.values
        : condition.value
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item !== '');
    return { field, op, value: items.map((item) => operandValue(kind, item)) };
  }
  return { field, op, value: operandValue(kind, condition.value) };
}

function groupNode(group: GroupDraft, targets: ReadonlyMap<string, FilterTarget>): FilterNode | undefined {
  const children = group.children
    .map((child) => (child.kind === 'group' ? groupNode(child, targets) : conditionNode(child, targets.get(child.field))))
    .filter((child): child is FilterNode => child !== undefined);
  if (children.length === 0) return undefined;
  if (group.mode === 'all') return { and: children };
  if (group.mode === 'any') return { or: children };
  return { not: { or: children } };
}

/**
 * The filter tree of `records.list` from the builder: groups become `and` / `or` / `not`, empty
 * groups drop out, and a top-level "all" of one condition is that condition. Undefined: no filter.
 */
export function buildFilterTree(root: GroupDraft, targets: readonly FilterTarget[]): FilterNode | undefined {
  const byKey = new Map(targets.map((target) => [target.key, target]));
  const tree = groupNode(root, byKey);
  const only = tree && 'and' in tree && tree.and.length === 1 ? tree.and[0] : undefined;
  if (only && 'field' in only) return only;
  return tree;
}

/**
 * The tree checked by the rules the server applies (field-validation's), so a filter the server
 * would refuse is never sent. Errors are mapped back to the draft conditions they concern.
 */
export function checkFilter(
  root: GroupDraft,
  targets: readonly FilterTarget[],
  fields: readonly DataField[],
): { tree?: FilterNode; errors: Record<string, string>; general: FieldError[] } {
  const tree = buildFilterTree(root, targets);
  if (!tree) return { errors: {}, general: [] };
  const result = validateFilterTree(tree, [...fields]);
  if (result.ok) return { tree: result.value, errors: {}, general: [] };
  const errors: Record<string, string> = {};
  const general: FieldError[] = [];
  const conditionsByPath = pathsOfConditions(root, tree);
  const byKey = new Map(targets.map((target) => [target.key, target]));
  const conditions = conditionsById(root);
  for (const error of result.errors) {
    const owner = [...conditionsByPath.entries()].find(([path]) => error.field === path || error.field.startsWith(`${path}.`));
    const condition = owner && conditions.get(owner[1]);
    if (owner && condition) errors[owner[1]] ??= inInputsWords(error, condition, byKey.get(condition.field));
    else general.push(error);
  }
  return { errors, general };
}

/** How dates are typed where a condition takes a list: the shape the rules read, said beside the input. */
export const DATE_LIST_EXAMPLE: Partial<Record<OperandKind, string>> = {
  date: 'Dates as YYYY-MM-DD, e.g. 2026-12-31, 2027-01-15',
  datetime: 'Dates and times as ISO 8601 with a zone, e.g. 2026-12-31T09:00:00Z',
};

/**
 * A refused date in the words of the input it came from: a date picker shows the reader's own
 * format, so a rule's "formatted YYYY-MM-DD" would contradict it; a picker only ever gives an
 * empty value (not filled in, or filled in part) or a whole date.
 */
function inInputsWords(error: FieldError, condition: ConditionDraft, target: FilterTarget | undefined): string {
  const picker = !takesList(condition.op) && (target?.operand === 'date' || target?.operand === 'datetime');
  if (!picker || (error.code !== 'invalid_format' && error.code !== 'invalid_type')) return error.message;
  return target.operand === 'date' ? 'Choose a whole date: day, month and year.' : 'Choose a whole date and time.';
}

function conditionsById(group: GroupDraft, found = new Map<string, ConditionDraft>()): Map<string, ConditionDraft> {
  for (const child of group.children) {
    if (child.kind === 'group') conditionsById(child, found);
    else found.set(child.id, child);
  }
  return found;
}

/** Where each draft condition ended up in the tree (`filter.and[0].or[1]`), by draft id. */
function pathsOfConditions(root: GroupDraft, tree: FilterNode): Map<string, string> {
  const paths = new Map<string, string>();
  const walk = (group: GroupDraft, node: FilterNode, path: string) => {
    let list: FilterNode[];
    let listPath: string;
    if ('and' in node) [list, listPath] = [node.and, `${path}.and`];
    else if ('or' in node) [list, listPath] = [node.or, `${path}.or`];
    else if ('not' in node && 'or' in node.not) [list, listPath] = [node.not.or, `${path}.not.or`];
    else return;
    let index = 0;
    for (const child of group.children) {
      if (child.kind === 'group') {
        if (!hasConditions(child)) continue;
        const childNode = list[index];
        if (childNode) walk(child, childNode, `${listPath}[${index}]`);
      } else paths.set(`${listPath}[${index}]`, child.id);
      index++;
    }
  };
  const single = root.children.find((child) => child.kind === 'condition');
  if ('field' in tree && single) paths.set('filter', single.id);
  else walk(root, tree, 'filter');
  return paths;
}

function hasConditions(group: GroupDraft): boolean {
  return group.children.some((child) => child.kind === 'condition' || hasConditions(child));
}
