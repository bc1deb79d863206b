import type { RpcClient } from '../api/rpc-client';
import { isRpcError, type ErrorDetail } from '../api/rpc-error';

/** The most `records.createMany` takes at once. */
export const IMPORT_BATCH_SIZE = 1000;

export interface BatchProgress {
  created: number;
  total: number;
}

export interface BatchOutcome {
  created: number;
  /** The import stopped at a cancel, between batches: the rows after `created` were not sent. */
  cancelled: boolean;
}

/** A batch the server refused: none of its records exist; `created` records of earlier batches do. */
export class BatchRefused extends Error {
  constructor(
    readonly created: number,
    /** The refusals, each with the index of its record among all sent (not only in its batch). */
    readonly rows: Array<{ index: number; detail: ErrorDetail }>,
    readonly refusal: unknown,
  ) {
    super('A batch was refused');
  }
}

const RECORD_PATH = /^records\[(\d+)\]/;

/**
 * Creates the records through `records.createMany`, a batch at a time (each all or none), telling
 * the progress after each. A cancel takes effect between batches, so every batch is either wholly
 * created or not sent; a refused batch stops the import.
 */
export async function sendInBatches(options: {
  rpc: RpcClient;
  model: string;
  records: ReadonlyArray<Record<string, unknown>>;
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (progress: BatchProgress) => void;
}): Promise<BatchOutcome> {
  const { rpc, model, records, batchSize = IMPORT_BATCH_SIZE, signal, onProgress } = options;
  let created = 0;
  for (let start = 0; start < records.length; start += batchSize) {
    if (signal?.aborted) return { created, cancelled: true };
    const batch = records.slice(start, start + batchSize);
    try {
      await rpc.call('records.createMany', { model, records: batch.map((data) => ({ data })) });
    } catch (error) {
      const details = isRpcError(error) ? error.details : [];
      const rows = details.flatMap((detail) => {
        const match = RECORD_PATH.exec(detail.field);
        return match ? [{ index: start + Number(match[1]), detail }] : [];
      });
      throw new BatchRefused(created, rows, error);
    }
    created += batch.length;
    onProgress?.({ created, total: records.length });
  }
  return { created, cancelled: false };
}
