import { Type } from '@sinclair/typebox';
import { defineProcedure } from '../procedures/procedure';

/** What the `prune-idempotent-requests` task's principal holds, and nothing else does. */
export const PRUNE_IDEMPOTENT_REQUESTS = 'system.prune-idempotent-requests';

/**
 * The `prune-idempotent-requests` task: deletes the kept answers whose 24 hours are over. Reads
 * already ignore them (and a new request with the key replaces one), so this only bounds the table.
 */
export const pruneIdempotentRequests = defineProcedure({
  name: 'idempotency.pruneExpired',
  summary: 'Forget the answers of idempotent requests whose retention has ended',
  scope: 'system',
  permission: PRUNE_IDEMPOTENT_REQUESTS,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
  async handler(ctx) {
    const [row] = await ctx.em.execute<Array<{ pruned: number }>>(
      `WITH pruned AS (DELETE FROM idempotent_requests WHERE expires_at <= now() RETURNING 1)
       SELECT count(*)::int AS pruned FROM pruned`,
    );
    return { processed: row.pruned };
  },
});
