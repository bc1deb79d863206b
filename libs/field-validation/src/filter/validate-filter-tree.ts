import type { FieldDefinition, ModelFields } from '../core/field-definition';
import { indexModelFields } from '../core/field-definition';
import { describeType, isPlainObject, ownValue } from '../core/plain-object';
import type { FieldError, Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';
import { findUnstorableText } from '../values/storable-value';
import type { FilterOp } from './filter-ops';
import { isFilterOp } from './filter-ops';
import type { FilterTarget } from './filter-targets';
import { resolveFilterTarget } from './filter-targets';
import type { FilterCondition, FilterNode } from './filter-tree';
import { FILTER_LIMITS, FILTER_MAX_LIST_VALUES } from './filter-tree';

/** Errors are reported at paths below this root, e.g. `filter.and[2].value`. */
export const FILTER_ROOT_PATH = 'filter';

const GROUP_KEYS = ['and', 'or', 'not'] as const;
const CONDITION_KEYS: ReadonlySet<string> = new Set(['field', 'op', 'value']);

/**
 * Validates a filter tree against a model and returns it normalised (operands normalised like
 * record values, e.g. DATETIME to UTC; duplicate `in` values removed). Checks the shape, that
 * fields exist (visible model fields and system fields), that operators suit the field, operand
 * types, and the limits in FILTER_LIMITS. Reports all errors it can find; never throws.
 */
export function validateFilterTree(tree: unknown, fields: FieldDefinition[]): Result<FilterNode> {
  try {
    const validator = new FilterTreeValidator(indexModelFields(fields));
    const normalised = validator.node(tree, FILTER_ROOT_PATH, 1);
    return validator.errors.length > 0 || normalised === undefined ? failWith(validator.errors) : ok(normalised);
  } catch {
    // Only reachable with exotic input such as throwing getters or proxies.
    return fail(FILTER_ROOT_PATH, 'invalid_type', 'The filter could not be read.');
  }
}

class FilterTreeValidator {
  readonly errors: FieldError[] = [];
  private nodeCount = 0;
  private valueLength = 0;
  private limitReported = false;

  constructor(private readonly model: ModelFields) {}

  /** Returns the normalised node, or undefined when it (or something below it) is invalid. */
  node(node: unknown, path: string, depth: number): FilterNode | undefined {
    if (!this.enter(path, depth)) return undefined;
    if (!isPlainObject(node)) {
      return this.error(path, 'invalid_type', `A filter node must be an object, not ${describeType(node)}.`);
    }

    const keys = Object.keys(node);
    const groupKey = GROUP_KEYS.find((key) => Object.hasOwn(node, key));
    if (groupKey !== undefined) {
      if (keys.length !== 1) {
        return this.error(path, 'invalid_format', `A "${groupKey}" node must not have other keys.`);
      }
      return groupKey === 'not'
        ? this.negation(node['not'], `${path}.not`, depth)
        : this.group(groupKey, node[groupKey], `${path}.${groupKey}`, depth);
    }
    if (Object.hasOwn(node, 'field')) return this.condition(node, keys, path);
    return this.error(
      path,
      'invalid_format',
      'A filter node must be a condition { field, op, value } or an and / or / not group.',
    );
  }

  /** Counts the node and enforces the size limits; false means "do not look inside". */
  private enter(path: string, depth: number): boolean {
    if (this.limitReported) return false;
    this.nodeCount++;
    if (this.nodeCount > FILTER_LIMITS.maxNodes) {
      this.reportLimit(FILTER_ROOT_PATH, `A filter may have at most ${FILTER_LIMITS.maxNodes} nodes.`);
      return false;
    }
    if (depth > FILTER_LIMITS.maxDepth) {
      this.reportLimit(path, `A filter may be nested at most ${FILTER_LIMITS.maxDepth} levels deep.`);
      return false;
    }
    return true;
  }

  /** Counts a condition's text (given as sent, before normalising) against `maxValueLength`; false once over it. */
  private addValueLength(value: unknown): boolean {
    if (this.limitReported) return false;
    if (typeof value === 'string') this.valueLength += value.length;
    else if (Array.isArray(value)) {
      // Bounded by the node limit's sibling, FILTER_MAX_LIST_VALUES, checked after: count no more than that many.
      const counted = Math.min(value.length, FILTER_MAX_LIST_VALUES + 1);
      for (let index = 0; index < counted; index++) {
        const item: unknown = value[index];
        if (typeof item === 'string') this.valueLength += item.length;
      }
    }
    if (this.valueLength <= FILTER_LIMITS.maxValueLength) return true;
    this.reportLimit(FILTER_ROOT_PATH, `The values of a filter's conditions may have at most ${FILTER_LIMITS.maxValueLength} characters in all.`);
    return false;
  }

  private reportLimit(path: string, message: string): void {
    this.limitReported = true;
    this.errors.push({ field: path, code: 'out_of_range', message });
  }

  private group(kind: 'and' | 'or', children: unknown, path: string, depth: number): FilterNode | undefined {
    if (!Array.isArray(children)) {
      return this.error(path, 'invalid_type', `"${kind}" must be an array of filter nodes.`);
    }
    if (children.length === 0) return this.error(path, 'invalid_format', `"${kind}" must contain at least one node.`);
    // Refuse oversized arrays before walking them.
    if (this.nodeCount + children.length > FILTER_LIMITS.maxNodes) {
      this.reportLimit(FILTER_ROOT_PATH, `A filter may have at most ${FILTER_LIMITS.maxNodes} nodes.`);
      return undefined;
    }
    const normalised: FilterNode[] = [];
    for (let index = 0; index < children.length; index++) {
      const child = this.node(children[index], `${path}[${index}]`, depth + 1);
      if (child) normalised.push(child);
    }
    if (normalised.length !== children.length) return undefined;
    return kind === 'and' ? { and: normalised } : { or: normalised };
  }

  private negation(child: unknown, path: string, depth: number): FilterNode | undefined {
    const normalised = this.node(child, path, depth + 1);
    return normalised && { not: normalised };
  }

  private condition(node: Record<string, unknown>, keys: readonly string[], path: string): FilterNode | undefined {
    const unexpected = keys.filter((key) => !CONDITION_KEYS.has(key));
    if (unexpected.length > 0) {
      return this.error(`${path}.${unexpected[0]}`, 'invalid_format', 'A condition only has field, op and value.');
    }
    const field = ownValue(node, 'field');
    const op = ownValue(node, 'op');
    if (typeof field !== 'string') return this.error(`${path}.field`, 'invalid_type', 'The field must be a field key.');
    const target = resolveFilterTarget(field, this.model);
    if (target === undefined) return this.error(`${path}.field`, 'unknown_field', `Unknown field "${field}".`);
    if (!target.ok) return this.fromErrors(target.errors.map((error) => ({ ...error, field: `${path}.field` })));

    if (!isFilterOp(op)) return this.error(`${path}.op`, 'invalid_option', 'Unknown filter operator.');
    if (!target.value.ops.includes(op)) {
      return this.error(
        `${path}.op`,
        'invalid_option',
        `"${op}" cannot be used on "${field}"; allowed: ${target.value.ops.join(', ')}.`,
      );
    }

    const given = ownValue(node, 'value');
    if (!this.addValueLength(given)) return undefined;
    const value = this.operand(target.value, op, given, `${path}.value`);
    if (!value.ok) return this.fromErrors(value.errors);
    // Operands become SQL parameters, which PostgreSQL refuses to decode when they hold such text.
    const unstorable = findUnstorableText(value.value, `${path}.value`);
    if (unstorable) return this.fromErrors([unstorable]);
    const condition: FilterCondition = { field, op };
    if (value.value !== undefined) condition.value = value.value;
    return condition;
  }

  private operand(target: FilterTarget, op: FilterOp, value: unknown, path: string): Result<unknown> {
    if (op === 'isEmpty' || op === 'isNotEmpty') {
      return value === undefined ? ok(undefined) : fail(path, 'invalid_format', `"${op}" takes no value.`);
    }
    if (value === undefined) return fail(path, 'required', `"${op}" needs a value.`);
    if (value === null) return fail(path, 'invalid_type', 'Use isEmpty or isNotEmpty to match empty values.');
    if (op === 'in' || op === 'notIn') return this.list(target, op, value, path);
    if (op === 'contains' || op === 'startsWith') return (target.fragment ?? target.operand)(value, path);
    return target.operand(value, path);
  }

  private list(target: FilterTarget, op: 'in' | 'notIn', values: unknown, path: string): Result<unknown[]> {
    if (!Array.isArray(values)) return fail(path, 'invalid_type', `"${op}" needs an array of values.`);
    if (values.length === 0) return fail(path, 'invalid_format', `"${op}" needs at least one value.`);
    if (values.length > FILTER_MAX_LIST_VALUES) {
      return fail(path, 'too_long', `"${op}" takes at most ${FILTER_MAX_LIST_VALUES} values.`);
    }
    const normalised = new Set<unknown>();
    const errors: FieldError[] = [];
    for (let index = 0; index < values.length; index++) {
      const value: unknown = values[index];
      const itemPath = `${path}[${index}]`;
      const checked = value === null || value === undefined
        ? fail(itemPath, 'invalid_type', 'List values must not be empty.')
        : target.operand(value, itemPath);
      if (checked.ok) normalised.add(checked.value);
      else errors.push(...checked.errors);
    }
    return errors.length > 0 ? failWith(errors) : ok([...normalised]);
  }

  private error(field: string, code: FieldError['code'], message: string): undefined {
    this.errors.push({ field, code, message });
    return undefined;
  }

  private fromErrors(errors: readonly FieldError[]): undefined {
    this.errors.push(...errors);
    return undefined;
  }
}
