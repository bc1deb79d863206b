import { Type } from '@sinclair/typebox';
import { defineProcedure, type JobQueue } from '@mrp/platform';
import { nextSlot } from '../definitions/schedule';
import { pruneHookFailures } from '../hooks/hook-failures';
import { enqueueRuns, pruneChainCounters } from './run-queue';

/** What the `run-automation-schedules` task's principal holds. */
export const RUN_AUTOMATION_SCHEDULES = 'system.run-automation-schedules';
const SCHEDULES_PER_CALL = 500;

interface DueSchedule {
  id: string;
  organization_id: string;
  schedule_cron: string;
  schedule_timezone: string;
  next_run_at: Date | string;
}

/**
 * Queues one run for each due schedule slot and moves the schedule to its next slot after now.
 * Slots missed while nothing ran (a stopped scheduler) give one run, not one per slot. Rows are
 * taken with SKIP LOCKED and a slot's run is unique, so runs at once, or in two processes, queue
 * each slot once. Returns how many runs it queued.
 */
export const enqueueDueSchedules = (jobs: JobQueue) => defineProcedure({
  name: 'automations.schedules.enqueueDue',
  summary: 'Queues the runs of schedule slots that have come',
  scope: 'system',
  permission: RUN_AUTOMATION_SCHEDULES,
  input: Type.Object({}, { additionalProperties: false }),
  output: Type.Object({ processed: Type.Integer({ minimum: 0 }) }),
  async handler(ctx) {
    await pruneHookFailures(ctx.em);
    await pruneChainCounters(ctx.em);
    const due = await ctx.em.execute<DueSchedule[]>(
      `SELECT id, organization_id, schedule_cron, schedule_timezone, next_run_at FROM automations
        WHERE enabled AND trigger_type = 'schedule' AND next_run_at <= now()
        ORDER BY next_run_at LIMIT ? FOR UPDATE SKIP LOCKED`,
      [SCHEDULES_PER_CALL],
    );
    if (due.length === 0) return { processed: 0 };
    const now = new Date();
    const queued = await enqueueRuns(
      jobs,
      ctx.em,
      due.map((schedule) => {
        const slot = new Date(schedule.next_run_at);
        return { automationId: schedule.id, organizationId: schedule.organization_id, trigger: 'schedule' as const, input: { scheduledFor: slot.toISOString() }, scheduledFor: slot };
      }),
    );
    const next = due.map((schedule) => nextSlot(schedule.schedule_cron, schedule.schedule_timezone, now)?.toISOString() ?? null);
    await ctx.em.execute(
      `UPDATE automations a SET next_run_at = n.next_run_at
         FROM jsonb_to_recordset(?::jsonb) AS n(id uuid, next_run_at timestamptz)
        WHERE a.id = n.id`,
      [JSON.stringify(due.map((schedule, index) => ({ id: schedule.id, next_run_at: next[index] })))],
    );
    return { processed: queued.filter((id) => id !== null).length };
  },
});
