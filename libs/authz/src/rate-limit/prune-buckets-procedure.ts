import { Type } from '@sinclair/typebox';
import { defineProcedure } from '@mrp/platform';
import { secondsUntilFull } from './rate-limiter';

/** What the `prune-rate-limit-buckets` task's principal holds, and nothing else does. */
export const PRUNE_RATE_LIMIT_BUCKETS = 'system.prune-rate-limit-buckets';

// A bucket untouched this long has refilled to capacity: deleting it changes no decision.
const PRUNE_SQL = `
  WITH pruned AS (
    DELETE FROM rate_limit_buckets
     WHERE updated_at < clock_timestamp() - make_interval(secs => ?::double precision)
    RETURNING 1
  )
  SELECT count(*)::int AS pruned FROM pruned`;

/**
 * The `prune-rate-limit-buckets` task: deletes the API-key buckets idle long enough to be full
 * again (burst / rate seconds), so the table holds only keys in recent use. The deployment's
 * settings come with the call: the task passes PUBLIC_API_RATE_PER_SECOND and PUBLIC_API_BURST.
 */
export const pruneRateLimitBuckets = defineProcedure({
  name: 'apiKeys.pruneRateLimitBuckets',
  summary: 'Forget the rate-limit buckets that have refilled completely',
  scope: 'system',
  permission: PRUNE_RATE_LIMIT_BUCKETS,
  input: Type.Object(
    { ratePerSecond: Type.Number({ exclusiveMinimum: 0 }), burst: Type.Integer({ minimum: 1 }) },
    { additionalProperties: false },
  ),
  output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
  async handler(ctx, settings) {
    const [row] = await ctx.em.execute<Array<{ pruned: number }>>(PRUNE_SQL, [secondsUntilFull(settings)]);
    return { processed: row.pruned };
  },
});
