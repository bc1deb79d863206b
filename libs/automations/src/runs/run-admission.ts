import { Type } from '@sinclair/typebox';
import { defineProcedure, sqlTextArray, type ProcedureContext } from '@mrp/platform';
import { MAX_CHAIN_DEPTH, MAX_RUN_ATTEMPTS, RUN_AUTOMATIONS, RunOutcomes } from './run-outcome';
import { chainDepth, type RunRow } from './run-rows';

interface Admission {
  id: string;
  enabled: boolean;
  max_runs_per_minute: number;
  taken: number;
}

/**
 * Takes up to `wanted` tokens from the automation's bucket (capacity and refill per minute:
 * max_runs_per_minute) in one statement, and says how many it got.
 */
async function takeRunTokens(ctx: ProcedureContext, automationId: string, wanted: number): Promise<Admission | undefined> {
  const [admission] = await ctx.em.execute<Admission[]>(
    `WITH bucket AS (
       SELECT id, enabled,
              LEAST(max_runs_per_minute, run_tokens + extract(epoch FROM clock_timestamp() - run_tokens_at) * max_runs_per_minute / 60.0) AS tokens
         FROM automations WHERE id = ? FOR UPDATE
     ), grant_ AS (
       SELECT id, tokens, CASE WHEN enabled THEN LEAST(?::int, floor(tokens)::int) ELSE 0 END AS taken FROM bucket
     )
     UPDATE automations a SET run_tokens = g.tokens - g.taken, run_tokens_at = clock_timestamp()
       FROM grant_ g WHERE a.id = g.id
     RETURNING a.id, a.enabled, a.max_runs_per_minute, g.taken`,
    [automationId, wanted],
  );
  return admission;
}

/** Runs admitted in one call at most: the most the runner takes from the queue at once. */
export const MAX_RUNS_PER_ADMISSION = 200;

/**
 * `automations.runs.admit`: decides, for a batch of runs taken from the queue, which go ahead. A run that would
 * be too deep a chain, or whose runners died too often, fails; one of a disabled automation, or
 * beyond its automation's runs-a-minute bucket, is skipped (recorded, never dropped). The admitted
 * ones are marked, so a run taken again after its runner died does not take a second token. In a
 * short transaction of its own: the automation's row is locked only while tokens are taken, never
 * while runs execute, so the runs of one automation run side by side.
 */
export const admitRuns = defineProcedure({
  name: 'automations.runs.admit',
  summary: 'Admits runs taken from the queue: chain depth, attempts, and the automations\' rate buckets',
  scope: 'system',
  permission: RUN_AUTOMATIONS,
  input: Type.Object({ runIds: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: MAX_RUNS_PER_ADMISSION, uniqueItems: true }) }, { additionalProperties: false }),
  output: Type.Object({ admitted: Type.Array(Type.String()) }),
  async handler(ctx, input) {
    // Each taking counts as an attempt: a run whose runner died takes another when its job expires.
    const runs = await ctx.em.execute<Array<Pick<RunRow, 'id' | 'automation_id' | 'organization_id' | 'chain' | 'attempts' | 'admitted_at'>>>(
      `WITH taken AS (SELECT id FROM automation_runs WHERE id = ANY(?::uuid[]) AND status = 'queued' ORDER BY id FOR UPDATE)
       UPDATE automation_runs r SET attempts = r.attempts + 1 FROM taken WHERE r.id = taken.id
       RETURNING r.id, r.automation_id, r.organization_id, r.chain, r.attempts, r.admitted_at`,
      [sqlTextArray(input.runIds)],
    );
    const outcomes = new RunOutcomes(ctx);
    const admitted: string[] = [];
    const waiting = new Map<string, typeof runs>();
    for (const run of runs) {
      if (run.attempts > MAX_RUN_ATTEMPTS) {
        outcomes.finish(run, 'failed', `The run was interrupted ${MAX_RUN_ATTEMPTS} times (its runner stopped); it is not tried again`);
      } else if (chainDepth(run) > MAX_CHAIN_DEPTH) {
        const message = `Stopped: this run would be automation number ${chainDepth(run)} in a chain of automations triggering one another (at most ${MAX_CHAIN_DEPTH})`;
        outcomes.finish(run, 'failed', message);
      } else if (run.admitted_at) {
        admitted.push(run.id);
      } else {
        waiting.set(run.automation_id, [...(waiting.get(run.automation_id) ?? []), run]);
      }
    }
    const newlyAdmitted: string[] = [];
    // In id order, so two admissions never wait on each other's automations crosswise.
    for (const [automationId, queued] of [...waiting].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const admission = await takeRunTokens(ctx, automationId, queued.length);
      const taken = admission?.taken ?? 0;
      newlyAdmitted.push(...queued.slice(0, taken).map((run) => run.id));
      for (const run of queued.slice(taken)) {
        const reason = admission?.enabled
          ? `Rate limit: the automation runs at most ${admission.max_runs_per_minute} times a minute`
          : 'The automation was disabled before the run started';
        outcomes.finish(run, 'skipped', reason);
      }
    }
    await outcomes.record();
    if (newlyAdmitted.length > 0) {
      await ctx.em.execute('UPDATE automation_runs SET admitted_at = now() WHERE id = ANY(?::uuid[])', [sqlTextArray(newlyAdmitted)]);
    }
    return { admitted: [...admitted, ...newlyAdmitted] };
  },
});
