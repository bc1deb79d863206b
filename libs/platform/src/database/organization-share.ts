import { DomainError } from '../errors/domain-error';

interface Waiter {
  resolve(): void;
  timer: NodeJS.Timeout;
  /** Timed out: gone from the caller's point of view, skipped when its turn comes. */
  gaveUp: boolean;
}

interface Holding {
  held: number;
  readonly waiters: Waiter[];
}

export interface OrganizationShareOptions {
  /** How many calls of one organization may run at once in this process. */
  maxPerOrganization: number;
  /** How long a call over that number waits for a place before it is refused. */
  queueTimeoutMs: number;
}

/** Seconds a refused call is told to wait: places free up as fast as calls end. */
const RETRY_AFTER_SECONDS = 1;

/**
 * At most `maxPerOrganization` calls of one organization run at once in this process, so one
 * organization can hold no more than that many of the pool's connections and every other one
 * still gets a connection at once. A call over the number waits in its organization's queue (in
 * order) for up to `queueTimeoutMs`, then is refused with 503 `service_unavailable`; other
 * organizations never wait behind it. O(1) per call: a map entry exists only while the
 * organization has a call running.
 */
export class OrganizationShare {
  private readonly holdings = new Map<string, Holding>();

  constructor(private readonly options: OrganizationShareOptions) {}

  /** Runs `work` holding one of the organization's places; without an organization, as it is. */
  async run<T>(organizationId: string | null | undefined, work: () => Promise<T>): Promise<T> {
    if (!organizationId) return work();
    let holding = this.holdings.get(organizationId);
    if (!holding) this.holdings.set(organizationId, (holding = { held: 0, waiters: [] }));
    if (holding.held < this.options.maxPerOrganization) holding.held++;
    else await this.waitForPlace(holding);
    try {
      return await work();
    } finally {
      this.release(organizationId, holding);
    }
  }

  /** Calls of the organization running now (for tests and metrics). */
  running(organizationId: string): number {
    return this.holdings.get(organizationId)?.held ?? 0;
  }

  private waitForPlace(holding: Holding): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        gaveUp: false,
        timer: setTimeout(() => {
          waiter.gaveUp = true;
          reject(
            new DomainError(
              'service_unavailable',
              'Your organization is running as many requests as it may at once: try again shortly',
              undefined,
              { 'Retry-After': String(RETRY_AFTER_SECONDS) },
            ),
          );
        }, this.options.queueTimeoutMs),
      };
      holding.waiters.push(waiter);
    });
  }

  /** The place goes to the next waiter still waiting (held stays the same), else it is freed. */
  private release(organizationId: string, holding: Holding): void {
    let next = holding.waiters.shift();
    while (next?.gaveUp) next = holding.waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve();
      return;
    }
    holding.held--;
    if (holding.held === 0) this.holdings.delete(organizationId);
  }
}
