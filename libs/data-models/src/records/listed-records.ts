import { validationFailed } from '@mrp/platform';
import { validateFilterTree, type FilterNode } from '@mrp/field-validation';
import { definitionMap, loadRecordModel, toDefinition, type FieldShape, type RecordModel } from '../models/model-store';
import type { ProcedureContext } from '@mrp/platform';
import { parseSort } from '../query/sort';
import { parseFieldSelection } from './field-selection';
import type { ListQuerySpec } from './list-query';
import { errorDetail } from './record-data';
import { parseExpansion } from './relation-expansion';

export interface ListSelection {
  model: string;
  sort?: string;
  filter?: object;
  fields?: string;
  expand?: string;
  q?: string;
  deleted?: 'only';
}

/** The records a list (or an export) reads, checked and resolved against the model once. */
export interface ListedRecords extends RecordModel {
  /** The `fields` keys asked for; undefined: every field. */
  selected: ReadonlySet<string> | undefined;
  /** The relation fields to expand; undefined: none. */
  expanded: FieldShape[] | undefined;
  /** The list's query without its position and page size (its rows carry the expanded relations' titles). */
  query: Omit<ListQuerySpec, 'after' | 'limit'>;
}

export function parseFilter(tree: object, fields: readonly FieldShape[]): FilterNode {
  const result = validateFilterTree(tree, fields.map(toDefinition));
  if (!result.ok) throw validationFailed(result.errors.map(errorDetail), 'The filter is invalid');
  return result.value;
}

/**
 * The one reading of a list's input, for records.list and records.export alike: the model, the
 * field selection and expansion, the sort and filter, and the query of the records the caller may
 * see (row-level access included), so an export can never show what the list would not.
 */
export async function listedRecords(ctx: ProcedureContext<'organization'>, input: ListSelection): Promise<ListedRecords> {
  const recordModel = await loadRecordModel(ctx.em, ctx.organizationId, input.model);
  const { model, fields } = recordModel;
  const definitions = definitionMap(fields);
  const selected = parseFieldSelection(input.fields, fields);
  const expanded = parseExpansion(input.expand, fields);
  const trash = input.deleted === 'only';
  const sort = parseSort(input.sort, definitions, { trash });
  const filter = input.filter === undefined ? undefined : parseFilter(input.filter, fields);
  return {
    ...recordModel,
    selected,
    expanded,
    query: {
      organizationId: ctx.organizationId,
      modelId: model.id,
      roleIds: ctx.principal.roleIds,
      fields: definitions,
      sort,
      filter,
      search: input.q,
      deleted: trash,
      expanded,
    },
  };
}
