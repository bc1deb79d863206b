import type { FilterNode } from '@mrp/field-validation';
import { newCondition, newGroup, takesList, type ConditionDraft, type FilterTarget, type GroupDraft } from './filter-builder';
import { toLocalDateTimeInput } from './record-form';

function operandText(target: FilterTarget | undefined, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (target?.operand === 'datetime' && typeof value === 'string') return toLocalDateTimeInput(value);
  return String(value);
}

function conditionDraft(node: Extract<FilterNode, { field: string }>, targets: ReadonlyMap<string, FilterTarget>): ConditionDraft {
  const target = targets.get(node.field);
  const base = newCondition(target ?? { key: node.field, label: node.field, ops: [node.op], operand: 'text' });
  const list = Array.isArray(node.value) ? node.value : [];
  if (takesList(node.op) && target?.operand === 'option') return { ...base, op: node.op, values: list.map(String) };
  if (takesList(node.op)) return { ...base, op: node.op, value: list.map((item) => operandText(target, item)).join(', ') };
  return { ...base, op: node.op, value: operandText(target, node.value) };
}

function child(node: FilterNode, targets: ReadonlyMap<string, FilterTarget>): ConditionDraft | GroupDraft {
  return 'field' in node ? conditionDraft(node, targets) : group(node, targets);
}

function group(node: FilterNode, targets: ReadonlyMap<string, FilterTarget>): GroupDraft {
  if ('and' in node) return newGroup('all', node.and.map((item) => child(item, targets)));
  if ('or' in node) return newGroup('any', node.or.map((item) => child(item, targets)));
  if ('not' in node) {
    const inner = node.not;
    return newGroup('none', 'or' in inner ? inner.or.map((item) => child(item, targets)) : [child(inner, targets)]);
  }
  return newGroup('all', [conditionDraft(node, targets)]);
}

/**
 * The builder's draft of a filter tree (one from the address or a saved view), the inverse of
 * buildFilterTree: and / or / not (or …) become all / any / none groups, a lone condition a group
 * of one.
 */
export function draftFromTree(tree: FilterNode | undefined, targets: readonly FilterTarget[]): GroupDraft {
  if (!tree) return newGroup('all');
  return group(tree, new Map(targets.map((target) => [target.key, target])));
}
