import { DatabaseProbe } from './database-probe';

/** A check whose answers the test gives, one per question it was asked. */
function answeredByHand() {
  const pending: Array<(reachable: boolean) => void> = [];
  const check = () => new Promise<boolean>((resolve) => pending.push(resolve));
  return { check, pending };
}

describe('DatabaseProbe', () => {
  it('asks the database once for callers that come while a question is under way, and gives them all its answer', async () => {
    const { check, pending } = answeredByHand();
    const probe = new DatabaseProbe(check);
    const answers = Promise.all(Array.from({ length: 50 }, () => probe.reachable()));
    expect(pending).toHaveLength(1);
    pending[0](false);
    expect(await answers).toEqual(Array.from({ length: 50 }, () => false));
  });

  it('asks afresh once the last answer is in: an answer is never kept past its question', async () => {
    const { check, pending } = answeredByHand();
    const probe = new DatabaseProbe(check);
    const first = probe.reachable();
    pending[0](false);
    expect(await first).toBe(false);
    const second = probe.reachable();
    expect(pending).toHaveLength(2);
    pending[1](true);
    expect(await second).toBe(true);
  });
});
