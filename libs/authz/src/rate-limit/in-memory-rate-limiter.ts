import {
  assertBucketKey,
  assertTokenBucketSettings,
  decide,
  secondsUntilFull,
  type RateLimitDecision,
  type RateLimiter,
  type TokenBucketSettings,
} from './rate-limiter';

export interface InMemoryRateLimiterOptions extends TokenBucketSettings {
  /** Milliseconds clock; injectable so tests control time. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAtMs: number;
}

// Forgetting refilled buckets now and then keeps memory bounded by the keys active recently.
const SWEEP_EVERY_TAKES = 10_000;

/**
 * The same token bucket as PostgresRateLimiter, for a single process (one api instance, tests):
 * nothing is shared between processes.
 */
export class InMemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly settings: TokenBucketSettings;
  private readonly now: () => number;
  private takesSinceSweep = 0;

  constructor(options: InMemoryRateLimiterOptions) {
    assertTokenBucketSettings(options);
    this.settings = { ratePerSecond: options.ratePerSecond, burst: options.burst };
    this.now = options.now ?? Date.now;
  }

  async take(bucketKey: string): Promise<RateLimitDecision> {
    assertBucketKey(bucketKey);
    if (++this.takesSinceSweep >= SWEEP_EVERY_TAKES) this.prune();
    const nowMs = this.now();
    const previous = this.buckets.get(bucketKey);
    const tokens = this.tokensAt(previous, nowMs);
    const admitted = tokens >= 1;
    const tokensLeft = admitted ? tokens - 1 : tokens;
    // A clock that steps back must not mint tokens on the next take.
    this.buckets.set(bucketKey, { tokens: tokensLeft, updatedAtMs: Math.max(nowMs, previous?.updatedAtMs ?? nowMs) });
    return decide(this.settings, admitted, tokensLeft);
  }

  /** Forgets buckets that are full again; returns how many. */
  prune(): number {
    this.takesSinceSweep = 0;
    const idleMs = secondsUntilFull(this.settings) * 1000;
    const nowMs = this.now();
    let pruned = 0;
    for (const [key, bucket] of this.buckets) {
      if (nowMs - bucket.updatedAtMs >= idleMs) {
        this.buckets.delete(key);
        pruned++;
      }
    }
    return pruned;
  }

  private tokensAt(bucket: Bucket | undefined, nowMs: number): number {
    if (!bucket) return this.settings.burst;
    const elapsedSeconds = Math.max(0, nowMs - bucket.updatedAtMs) / 1000;
    return Math.min(this.settings.burst, bucket.tokens + elapsedSeconds * this.settings.ratePerSecond);
  }
}
