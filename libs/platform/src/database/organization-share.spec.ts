import { DomainError } from '../errors/domain-error';
import { OrganizationShare } from './organization-share';

/** A call that runs until it is told to finish. */
function heldCall() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return { work: () => finished.then(() => 'done'), finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('OrganizationShare', () => {
  it('runs at most its share of one organization at once and never makes another organization wait', async () => {
    const share = new OrganizationShare({ maxPerOrganization: 2, queueTimeoutMs: 60_000 });
    const calls = Array.from({ length: 5 }, heldCall);
    const started: number[] = [];
    const answers = calls.map((call, index) =>
      share.run('org-a', () => {
        started.push(index);
        return call.work();
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(share.running('org-a')).toBe(2);

    // Another organization gets its places at once, while org-a's queue waits.
    await expect(share.run('org-b', async () => 'b answered')).resolves.toBe('b answered');
    await expect(share.run(null, async () => 'no organization')).resolves.toBe('no organization');

    calls[0].finish();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    for (const call of calls) call.finish();
    await expect(Promise.all(answers)).resolves.toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(share.running('org-a')).toBe(0);
  });

  it('refuses a call that waited its whole queue time with 503 service_unavailable and Retry-After; the queue goes on', async () => {
    const share = new OrganizationShare({ maxPerOrganization: 1, queueTimeoutMs: 50 });
    const holder = heldCall();
    const holding = share.run('org-a', holder.work);
    let ran = false;
    const refused = await share
      .run('org-a', async () => {
        ran = true;
      })
      .catch((error: unknown) => error);
    expect(ran).toBe(false);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'service_unavailable', headers: { 'Retry-After': '1' } });

    // The place the refused call never took goes to the next one that waits.
    const next = share.run('org-a', async () => 'next');
    holder.finish();
    await expect(holding).resolves.toBe('done');
    await expect(next).resolves.toBe('next');
    expect(share.running('org-a')).toBe(0);
  });

  it('gives the place back when the call fails', async () => {
    const share = new OrganizationShare({ maxPerOrganization: 1, queueTimeoutMs: 1_000 });
    await expect(share.run('org-a', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(share.running('org-a')).toBe(0);
    await expect(share.run('org-a', async () => 'again')).resolves.toBe('again');
  });
});
