/** The answer for one request: the HTTP layer turns it into X-RateLimit-* and Retry-After. */
export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's capacity (the burst). */
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Whole seconds until one token is back, at least 1 when denied; 0 when allowed. */
  retryAfterSeconds: number;
  /** Whole seconds until the bucket is full again if no request comes (0 when it is full). */
  resetSeconds: number;
}

/**
 * A token bucket per key: capacity `burst`, refilled continuously at `ratePerSecond`; every
 * allowed request takes one token, a denied one takes nothing.
 */
export interface RateLimiter {
  take(bucketKey: string): Promise<RateLimitDecision>;
}

export interface TokenBucketSettings {
  /** Sustained requests per second (the refill rate). */
  ratePerSecond: number;
  /** Bucket capacity: how many requests may arrive at once. */
  burst: number;
}

export function assertTokenBucketSettings({ ratePerSecond, burst }: TokenBucketSettings): void {
  if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) {
    throw new Error(`Rate limit ratePerSecond must be a positive number, got ${ratePerSecond}`);
  }
  if (!Number.isInteger(burst) || burst < 1) throw new Error(`Rate limit burst must be a whole number >= 1, got ${burst}`);
}

export function assertBucketKey(bucketKey: string): void {
  if (typeof bucketKey !== 'string' || bucketKey.length === 0) throw new Error('A rate-limit bucket key must be a non-empty string');
}

/** Seconds after which an untouched bucket has refilled to capacity, so forgetting it changes nothing. */
export function secondsUntilFull(settings: TokenBucketSettings): number {
  return Math.ceil(settings.burst / settings.ratePerSecond);
}

/** The decision, given whether a token was taken and what is left in the bucket after the take. */
export function decide(settings: TokenBucketSettings, admitted: boolean, tokensLeft: number): RateLimitDecision {
  return {
    allowed: admitted,
    limit: settings.burst,
    remaining: Math.max(0, Math.floor(tokensLeft)),
    retryAfterSeconds: admitted ? 0 : Math.max(1, Math.ceil((1 - tokensLeft) / settings.ratePerSecond)),
    resetSeconds: Math.max(0, Math.ceil((settings.burst - tokensLeft) / settings.ratePerSecond)),
  };
}
