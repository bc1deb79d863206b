import { describe, expect, it, vi } from 'vitest';
import type { RpcClient } from '../api/rpc-client';
import { RpcError } from '../api/rpc-error';
import { BatchRefused, sendInBatches } from './send-batches';

const records = Array.from({ length: 25 }, (_, index) => ({ title: `R${index}` }));

describe('sending records in batches', () => {
  it('sends batches of the given size in order and tells the progress after each', async () => {
    const call = vi.fn().mockResolvedValue({ items: [] });
    const progress: number[] = [];
    const outcome = await sendInBatches({ rpc: { call } as RpcClient, model: 'deals', records, batchSize: 10, onProgress: (p) => progress.push(p.created) });
    expect(outcome).toEqual({ created: 25, cancelled: false });
    expect(call.mock.calls.map(([name, input]) => [name, input.records.length])).toEqual([
      ['records.createMany', 10],
      ['records.createMany', 10],
      ['records.createMany', 5],
    ]);
    expect(call.mock.calls[1]?.[1].records[0]).toEqual({ data: { title: 'R10' } });
    expect(progress).toEqual([10, 20, 25]);
  });

  it('stops between batches when cancelled', async () => {
    const controller = new AbortController();
    const call = vi.fn().mockImplementation(async () => controller.abort());
    const outcome = await sendInBatches({ rpc: { call } as RpcClient, model: 'deals', records, batchSize: 10, signal: controller.signal });
    expect(outcome).toEqual({ created: 10, cancelled: true });
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('stops at a refused batch, naming its records by their index among all', async () => {
    const refusal = new RpcError({ code: 'validation_failed', message: 'no', status: 400, requestId: 'req-1', details: [{ field: 'records[3].data.title', code: 'required', message: 'Required' }] });
    const call = vi.fn().mockResolvedValueOnce({ items: [] }).mockRejectedValueOnce(refusal);
    const failure = await sendInBatches({ rpc: { call } as RpcClient, model: 'deals', records, batchSize: 10 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BatchRefused);
    expect((failure as BatchRefused).created).toBe(10);
    expect((failure as BatchRefused).rows).toEqual([{ index: 13, detail: refusal.details[0] }]);
  });
});
