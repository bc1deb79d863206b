import { DatabaseProbe } from './database-probe';

/** Questions the test answers by hand, one per question asked. */
function answeredByHand() {
  const pending: Array<(reachable: boolean) => void> = [];
  const ask = () => new Promise<boolean>((resolve) => pending.push(resolve));
  return { ask, pending };
}

describe('DatabaseProbe', () => {
  afterEach(() => jest.useRealTimers());

  it('asks the database once for callers that come while a question is under way, and gives them all its answer', async () => {
    const { ask, pending } = answeredByHand();
    const probe = new DatabaseProbe(ask, 2_000);
    const answers = Promise.all(Array.from({ length: 50 }, () => probe.reachable()));
    expect(pending).toHaveLength(1);
    pending[0](false);
    expect(await answers).toEqual(Array.from({ length: 50 }, () => false));
  });

  it('asks afresh once the last answer is in: an answer is never kept past its question', async () => {
    const { ask, pending } = answeredByHand();
    const probe = new DatabaseProbe(ask, 2_000);
    const first = probe.reachable();
    pending[0](false);
    expect(await first).toBe(false);
    const second = probe.reachable();
    expect(pending).toHaveLength(2);
    pending[1](true);
    expect(await second).toBe(true);
  });

  it('tells a caller "unreachable" past its wait, and asks nothing more while the stalled question lasts', async () => {
    jest.useFakeTimers();
    const { ask, pending } = answeredByHand();
    const probe = new DatabaseProbe(ask, 2_000);
    const first = probe.reachable();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(await first).toBe(false);
    // The database still has not answered: later callers wait on the same question.
    const later = probe.reachable();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(await later).toBe(false);
    expect(pending).toHaveLength(1);
    pending[0](true);
    await jest.advanceTimersByTimeAsync(0);
    const fresh = probe.reachable();
    expect(pending).toHaveLength(2);
    pending[1](true);
    expect(await fresh).toBe(true);
  });
});
