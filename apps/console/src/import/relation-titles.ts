import { TITLE_FIELD_KEY, type FilterNode } from '@mrp/field-validation';
import type { RpcClient } from '../api/rpc-client';
import { describeError, isRpcError } from '../api/rpc-error';
import type { DataField, RecordPage } from '../data-models/types';
import type { ColumnMapping } from './column-mapping';

/** A record id as the API writes one; any other text in a RELATION cell is read as a title. */
const RECORD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How a list is written in one cell, as cell-values reads it: `a, b` or `a; b`. */
const LIST_SEPARATOR = /[;,]/;
/** Titles asked for in one records.list filter: under the filter's 100 nodes and 4,000 characters. */
const BATCH_TITLES = 50;
const BATCH_CHARACTERS = 3_000;
const PAGE_SIZE = 100;

export const isRecordId = (text: string) => RECORD_ID.test(text);
const titleKey = (title: string) => title.trim().toLowerCase();

/** What is known of one related model's titles: the records bearing each title asked for, by titleKey. */
export interface ModelTitles {
  matches: Map<string, string[]>;
  /** Why the model's titles could not be read (no permission, say); then no title of it resolves. */
  refused?: string;
}

/** By related model key. */
export type RelationTitles = ReadonlyMap<string, ModelTitles>;

export const targetModelOf = (field: DataField) => (typeof field.config['targetModel'] === 'string' ? field.config['targetModel'] : '');

const cellItems = (field: DataField, text: string) =>
  (field.config['multiple'] === true ? text.split(LIST_SEPARATOR) : [text]).map((part) => part.trim()).filter((part) => part !== '');

/** The titles (not ids) the mapped RELATION columns hold, by related model. */
export function titlesToFind(fields: readonly DataField[], mapping: ColumnMapping, rows: readonly (readonly string[])[]): Map<string, Set<string>> {
  const wanted = new Map<string, Set<string>>();
  mapping.forEach((key, column) => {
    const field = fields.find((candidate) => candidate.key === key);
    if (field?.type !== 'RELATION') return;
    const model = targetModelOf(field);
    const titles = wanted.get(model) ?? new Set<string>();
    wanted.set(model, titles);
    for (const cells of rows) for (const item of cellItems(field, cells[column] ?? '')) if (!isRecordId(item)) titles.add(item);
  });
  return wanted;
}

function batchesOf(titles: readonly string[]): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let characters = 0;
  for (const title of titles) {
    if (batch.length > 0 && (batch.length === BATCH_TITLES || characters + title.length > BATCH_CHARACTERS)) {
      batches.push(batch);
      batch = [];
      characters = 0;
    }
    batch.push(title);
    characters += title.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Finds the records of `model` the reader can see whose title is one of `titles`, exactly but in
 * any case: `startsWith` is the filter's one case-insensitive test that an index prefix can serve,
 * so each batch of titles is one `or` of them, its pages read to the end and the exact matches kept.
 */
async function findTitles(rpc: RpcClient, model: string, titles: readonly string[], into: ModelTitles): Promise<void> {
  for (const batch of batchesOf(titles)) {
    // Kept only once the batch is read to its end: a title half looked up is not "no record".
    const found = new Map(batch.map((title) => [titleKey(title), [] as string[]]));
    const filter: FilterNode = { or: batch.map((title) => ({ field: TITLE_FIELD_KEY, op: 'startsWith', value: title })) };
    let cursor: string | null = null;
    do {
      const page: RecordPage = await rpc.call('records.list', { model, filter, sort: 'title', limit: PAGE_SIZE, fields: 'title', ...(cursor ? { cursor } : {}) });
      for (const record of page.items) {
        const ids = found.get(titleKey(record.title));
        if (ids && !ids.includes(record.id)) ids.push(record.id);
      }
      cursor = page.nextCursor;
    } while (cursor);
    for (const [key, ids] of found) into.matches.set(key, ids);
  }
}

/**
 * Looks up the titles not yet in `known` (kept between checks of one import, so a corrected cell
 * costs one lookup of its own), in batches; a model the reader cannot list is marked refused.
 */
export async function lookUpTitles(rpc: RpcClient, wanted: ReadonlyMap<string, ReadonlySet<string>>, known: Map<string, ModelTitles>): Promise<RelationTitles> {
  for (const [model, titles] of wanted) {
    const entry = known.get(model) ?? { matches: new Map<string, string[]>() };
    known.set(model, entry);
    if (entry.refused) continue;
    // One question per title whatever its case: the answer is compared in any case anyway.
    const missing = new Map<string, string>();
    for (const title of titles) if (!entry.matches.has(titleKey(title)) && !missing.has(titleKey(title))) missing.set(titleKey(title), title);
    if (missing.size === 0) continue;
    try {
      await findTitles(rpc, model, [...missing.values()], entry);
    } catch (error) {
      // A model the reader may not list refuses every title of it; anything else stops the check.
      if (!isRpcError(error) || (error.code !== 'forbidden' && error.code !== 'not_found')) throw error;
      entry.refused = describeError(error).title.toLowerCase();
    }
  }
  return known;
}

/**
 * A RELATION cell read with the titles found: each id as written, each title as the id of the one
 * record bearing it; a title no record bears, or several do, is the cell's error, never a guess.
 */
export function relationCell(field: DataField, text: string, titles: RelationTitles | undefined): { value: unknown } | { error: string } {
  const model = targetModelOf(field);
  const known = titles?.get(model);
  const ids: string[] = [];
  for (const item of cellItems(field, text)) {
    if (isRecordId(item)) {
      ids.push(item);
      continue;
    }
    if (!known) return { error: `“${item}” is not a record id` };
    if (known.refused) return { error: `“${item}” cannot be looked up among ${model} records (${known.refused}): write its id` };
    const found = known.matches.get(titleKey(item)) ?? [];
    if (found.length === 0) return { error: `No ${model} record you can see is titled “${item}”` };
    if (found.length > 1) return { error: `${found.length} ${model} records are titled “${item}”: write the id of the one you mean` };
    ids.push(found[0] as string);
  }
  return { value: field.config['multiple'] === true ? ids : ids[0] };
}
