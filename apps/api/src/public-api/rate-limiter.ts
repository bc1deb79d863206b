import { InMemoryRateLimiter, PostgresRateLimiter, type RateLimiter } from '@mrp/authz';
import type { Runtime } from '@mrp/runtime';

/** Postgres by default so every api process shares each key's bucket; memory only for a single process. */
export function createRateLimiter(runtime: Runtime): RateLimiter {
  const settings = { ratePerSecond: runtime.config.publicApiRatePerSecond, burst: runtime.config.publicApiBurst };
  return runtime.config.publicApiRateLimitStore === 'memory'
    ? new InMemoryRateLimiter(settings)
    : new PostgresRateLimiter(runtime.orm, settings);
}
