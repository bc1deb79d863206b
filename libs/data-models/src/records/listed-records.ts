import { Type } from '@sinclair/typebox';
import { validationFailed } from '@mrp/platform';
import { validateFilterTree, type FilterNode } from '@mrp/field-validation';
import { definitionMap, loadRecordModel, toDefinition, type FieldShape, type RecordModel } from '../models/model-store';
import type { ProcedureContext } from '@mrp/platform';
import { DEFAULT_SORT, DEFAULT_TRASH_SORT, MAX_SORT_TERMS, parseSort } from '../query/sort';
import { SEARCH_MAX_LENGTH } from '../query/search';
import { FieldSelectionInput, parseFieldSelection } from './field-selection';
import type { ListQuerySpec } from './list-query';
import { errorDetail } from './record-data';
import { ExpandInput, parseExpansion } from './relation-expansion';

/** What a list and an export both take: which records, in which order, with which fields. */
export const LIST_SELECTION_INPUTS = {
  sort: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: `Up to ${MAX_SORT_TERMS} comma-separated keys: createdAt, updatedAt, title or a field key (and deletedAt with deleted=only); prefix - for descending. Default ${DEFAULT_SORT} (${DEFAULT_TRASH_SORT} with deleted=only)`,
    }),
  ),
  // An object, never its JSON text: the REST door parses the query parameter's text once.
  filter: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'Filter tree, e.g. {"field":"status","op":"eq","value":"open"}, with and/or/not nodes; at most 100 nodes, depth 8, 4000 characters of condition values in all',
      },
    ),
  ),
  fields: Type.Optional(FieldSelectionInput),
  expand: Type.Optional(ExpandInput),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: SEARCH_MAX_LENGTH,
      description: 'Search: records whose title or a text, email or URL field contains this text, in any case (% and _ are literal)',
    }),
  ),
};

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
