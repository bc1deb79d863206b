import type { RpcClient } from '../api/rpc-client';
import type { RecordPage } from '../data-models/types';
import type { RecordListInput } from './view-state';

/** The most records one batch call takes (records.updateMany, records.deleteMany). */
export const BATCH_SIZE = 1000;
/** The most records one bulk action works on: beyond it, narrow the view first. */
export const MAX_BULK_RECORDS = 10_000;
const ID_PAGE_SIZE = 100;

export function chunks<T>(items: readonly T[], size = BATCH_SIZE): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

/** The ids of every record the view matches (titles only are read), up to MAX_BULK_RECORDS; `capped` when there are more. */
export async function matchingIds(rpc: RpcClient, input: RecordListInput): Promise<{ ids: string[]; capped: boolean }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: RecordPage = await rpc.call('records.list', { ...input, limit: ID_PAGE_SIZE, fields: 'title', ...(cursor ? { cursor } : {}) });
    ids.push(...page.items.map((record) => record.id));
    cursor = page.nextCursor;
  } while (cursor && ids.length < MAX_BULK_RECORDS);
  return { ids: ids.slice(0, MAX_BULK_RECORDS), capped: cursor !== null || ids.length > MAX_BULK_RECORDS };
}

/** Soft-deletes the records, a batch at a time (each batch all or none). */
export async function deleteRecords(rpc: RpcClient, ids: readonly string[]): Promise<void> {
  for (const batch of chunks(ids)) await rpc.call('records.deleteMany', { ids: batch });
}

/** Sets one field to one value on the records, a batch at a time (each batch all or none). */
export async function setFieldOnRecords(rpc: RpcClient, model: string, ids: readonly string[], key: string, value: unknown): Promise<void> {
  for (const batch of chunks(ids)) await rpc.call('records.updateMany', { model, records: batch.map((id) => ({ id, data: { [key]: value } })) });
}
