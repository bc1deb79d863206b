import type { EntityManager } from '@mikro-orm/postgresql';
import {
  assertBucketKey,
  assertTokenBucketSettings,
  decide,
  type RateLimitDecision,
  type RateLimiter,
  type TokenBucketSettings,
} from './rate-limiter';
import { sqlRunnerFor, type RateLimitDatabase, type SqlRunner } from './sql-runner';

export interface TokenTakeSql {
  /** SQL of the bucket key (text). */
  bucketKey: string;
  /** An optional FROM ... WHERE ... clause the bucket key is selected from: no row, no take. */
  from?: string;
  /** Placeholders of the settings. */
  burst: string;
  ratePerSecond: string;
}

/*
 * One atomic statement per take. A new key starts full and takes one token. For a known key
 * the row lock of ON CONFLICT serialises concurrent takes (across processes too), and the SET is
 * computed from the locked, latest row: refill by the elapsed database time (clock_timestamp(),
 * read once, after the lock), cap at the burst, then take one token only if a whole one is there,
 * so a denied request consumes nothing and tokens never go negative. `admitted` carries the
 * outcome out, since RETURNING sees only the new row.
 */
export function takeTokenSql({ bucketKey, from = '', burst, ratePerSecond }: TokenTakeSql): string {
  return `
  INSERT INTO rate_limit_buckets AS bucket (bucket_key, tokens, updated_at, admitted)
  SELECT ${bucketKey}, ${burst}::double precision - 1, clock_timestamp(), true ${from}
  ON CONFLICT (bucket_key) DO UPDATE SET (tokens, updated_at, admitted) = (
    SELECT CASE WHEN refill.tokens >= 1 THEN refill.tokens - 1 ELSE refill.tokens END,
           refill.at,
           refill.tokens >= 1
      FROM (SELECT least(${burst}::double precision,
                         bucket.tokens
                           + greatest(0, extract(epoch FROM clock.at - bucket.updated_at))::double precision
                             * ${ratePerSecond}::double precision) AS tokens,
                   greatest(clock.at, bucket.updated_at) AS at
              FROM (SELECT clock_timestamp() AS at) AS clock) AS refill
  )
  RETURNING tokens, admitted`;
}

// Parameters, in order: bucket key, burst, burst, rate.
const TAKE_SQL = takeTokenSql({ bucketKey: '?::text', burst: '?', ratePerSecond: '?' });

/**
 * The token bucket shared by every api process, kept in PostgreSQL (`rate_limit_buckets`).
 * Give it its own pool, or the ORM's: each take is one short autocommit statement. On the ORM's
 * database (see keepsBucketsBeside), API-key authentication does not call `take`: it runs the same
 * upsert inside its key lookup, where the migrations keep the bucket table beside the keys.
 */
export class PostgresRateLimiter implements RateLimiter {
  private readonly run: SqlRunner;
  /** Read by API-key authentication, which takes the token inside its own lookup statement. */
  readonly settings: TokenBucketSettings;

  constructor(
    private readonly database: RateLimitDatabase,
    settings: TokenBucketSettings,
  ) {
    assertTokenBucketSettings(settings);
    this.settings = { ratePerSecond: settings.ratePerSecond, burst: settings.burst };
    this.run = sqlRunnerFor(database);
  }

  /** Whether a statement sent through `em` reaches this limiter's buckets (the same ORM, hence database). */
  keepsBucketsBeside(em: EntityManager): boolean {
    return 'em' in this.database && this.database.em.getDriver() === em.getDriver();
  }

  async take(bucketKey: string): Promise<RateLimitDecision> {
    assertBucketKey(bucketKey);
    const [row] = await this.run<{ tokens: number; admitted: boolean }>(TAKE_SQL, [
      bucketKey,
      this.settings.burst,
      this.settings.burst,
      this.settings.ratePerSecond,
    ]);
    return decide(this.settings, row.admitted, Number(row.tokens));
  }
}

