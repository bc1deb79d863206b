import { conflict, isDomainError, notFound, validationFailed, type ErrorDetail, type ProcedureContext } from '@mrp/platform';
import { createEvent, recordEventAliases } from '@mrp/events';
import { loadRecordModel, type FieldShape, type RecordModel } from '../models/model-store';
import { RecordModelCache } from '../models/record-model-cache';
import { batchDetail, batchRefusal } from './record-data';
import { findVisibleRecord, findVisibleRecordsForUpdate, type FoundRecord, type RecordState } from './record-store';
import { checkRelationTargets, checkRelationTargetsOfBatch } from './relation-check';
import type { RecordOutput } from './schemas';
import { DEFAULT_PAGE_SIZE, MAX_BATCH_RECORDS } from './record-inputs';

export { DEFAULT_PAGE_SIZE, MAX_BATCH_RECORDS };

/** What the `records.*` procedures share: their inputs, record lookups, relation checks, events and model cache. */

/** A fresh load that is stale by the time of the INSERT means a concurrent field change; this many tries, then 409. */
const CREATE_ATTEMPTS = 3;

export type OrgContext = ProcedureContext<'organization'>;

export const TRASH_PERMISSION = { permission: 'records.delete', when: 'deleted=only', appliesTo: (input: { deleted?: string }) => input.deleted === 'only' };

export async function requireRecord(ctx: OrgContext, id: string, state: RecordState, forUpdate = false): Promise<FoundRecord> {
  const record = await findVisibleRecord(ctx.em, {
    organizationId: ctx.organizationId,
    id,
    roleIds: ctx.principal.roleIds,
    state,
    forUpdate,
  });
  if (!record) throw notFound('Record');
  return record;
}

/**
 * The live records a batch names, locked, in the batch's order; one refusal names every id that
 * is repeated, or that the caller cannot see, as if missing (`records[3].id`).
 */
export async function requireRecords(ctx: OrgContext, ids: readonly string[], path: (index: number) => string, modelKey?: string): Promise<FoundRecord[]> {
  const found = await findVisibleRecordsForUpdate(ctx.em, { organizationId: ctx.organizationId, ids, roleIds: ctx.principal.roleIds, modelKey });
  const byId = new Map(found.map((record) => [record.id, record]));
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  const records = ids.map((id, index) => {
    const record = byId.get(id.toLowerCase());
    if (!record) details.push({ field: path(index), code: 'not_found', message: 'Record not found' });
    else if (seen.has(record.id)) details.push({ field: path(index), code: 'duplicate', message: 'The record is named twice in the batch' });
    else seen.add(record.id);
    return record as FoundRecord;
  });
  if (details.length > 0) throw batchRefusal(details);
  return records;
}

export async function assertRelationTargets(ctx: OrgContext, fields: readonly FieldShape[], values: Record<string, unknown>): Promise<void> {
  const errors = await checkRelationTargets(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, fields, values);
  if (errors.length > 0) throw validationFailed(errors);
}

/** The relations of every record of a batch checked at once; one refusal names each bad value by its record's index. */
export async function assertRelationTargetsOfBatch(ctx: OrgContext, fields: readonly FieldShape[], values: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  if (!hasRelationFields(fields)) return;
  const problems = await checkRelationTargetsOfBatch(ctx.em, { organizationId: ctx.organizationId, roleIds: ctx.principal.roleIds }, fields, values);
  const details = problems.flatMap((errors, index) => errors.map((error) => batchDetail(index, error)));
  if (details.length > 0) throw batchRefusal(details);
}

export function hasRelationFields(fields: readonly FieldShape[]): boolean {
  return fields.some((field) => field.type === 'RELATION');
}

/** What the changed fields held before the update (null for a field that was empty). */
function previousValues(data: Record<string, unknown>, changedFields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(changedFields.map((key) => [key, data[key] ?? null]));
}

export function recordCreatedEvent(ctx: OrgContext, modelKey: string, record: RecordOutput) {
  return createEvent(
    'data-models.record-created',
    { modelKey, recordId: record.id, record },
    // A new record is restricted to no role yet.
    { organizationId: ctx.organizationId, subscriptionAliases: recordEventAliases(modelKey, 'created'), recordAccess: { roleIds: [] } },
  );
}

/** The event of an update, single or batched: the record as it now is, and the changed fields' previous values. */
export function recordUpdatedEvent(organizationId: string, current: FoundRecord, record: RecordOutput, changedFields: readonly string[]) {
  return createEvent(
    'data-models.record-updated',
    { modelKey: current.model_key, recordId: record.id, changedFields: [...changedFields], record, previous: previousValues(current.data, changedFields) },
    { organizationId, subscriptionAliases: recordEventAliases(current.model_key, 'updated'), recordAccess: { roleIds: current.access_role_ids } },
  );
}

/** The event of a deletion, single or batched, soft or hard. */
export function recordDeletedEvent(organizationId: string, record: FoundRecord, hard: boolean) {
  return createEvent(
    'data-models.record-deleted',
    { modelKey: record.model_key, recordId: record.id, hard },
    {
      organizationId,
      subscriptionAliases: recordEventAliases(record.model_key, 'deleted'),
      recordAccess: { roleIds: record.access_role_ids },
    },
  );
}

/**
 * The models the record procedures of one factory (one per process in the apps) keep between
 * calls, and the two ways a call uses them.
 */
export class CurrentModels {
  private readonly cache = new RecordModelCache();

  /**
   * The fields of a record's model: the cached ones when their version is the one the record was
   * read with (no round trip), else a fresh load, which the cache then keeps.
   */
  async fieldsOf(ctx: OrgContext, record: FoundRecord): Promise<Pick<RecordModel, 'fields' | 'fieldsVersion'>> {
    const cached = this.cache.get(ctx.organizationId, record.model_key);
    if (cached && cached.fieldsVersion === String(record.fields_version)) return cached;
    const current = await loadRecordModel(ctx.em, ctx.organizationId, record.model_key);
    this.cache.set(ctx.organizationId, current);
    return current;
  }

  /**
   * Runs a write against the cached model, and when that version turned out stale (or refused
   * against definitions that may be stale), against fresh loads: only the current ones may refuse.
   * `written` ends the conflict's message when the fields kept changing.
   */
  async write<T>(ctx: OrgContext, modelKey: string, written: string, write: (model: RecordModel) => Promise<T | null>): Promise<T> {
    const cached = this.cache.get(ctx.organizationId, modelKey);
    if (cached) {
      try {
        const result = await write(cached);
        if (result !== null) return result;
      } catch (error) {
        if (!isDomainError(error)) throw error;
      }
      this.cache.delete(ctx.organizationId, modelKey);
    }
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const current = await loadRecordModel(ctx.em, ctx.organizationId, modelKey);
      this.cache.set(ctx.organizationId, current);
      const result = await write(current);
      if (result !== null) return result;
    }
    throw conflict(`The fields of model "${modelKey}" kept changing while ${written}; try again`);
  }
}
