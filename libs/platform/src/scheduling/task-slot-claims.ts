import type { Orm } from '../database/orm';

/** Claims are only needed while a slot can still fire; a day covers any clock skew between runners. */
const RETENTION = "interval '1 day'";
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface TaskSlotClaims {
  /** True for the one caller (across processes) that claims `task` for the minute of `slot`. */
  claim(task: string, slot: Date): Promise<boolean>;
}

/** The minute a scheduled run belongs to: every runner firing for it agrees on this value. */
export function slotMinute(firedAt: Date): Date {
  return new Date(Math.floor(firedAt.getTime() / 60_000) * 60_000);
}

/**
 * Slot claims in `scheduled_task_slots`, so that several schedulers on one database run each
 * task once per slot. Old claims are dropped from the claim path, at most once an hour.
 */
export function createTaskSlotClaims(orm: Orm, claimedBy: string, now: () => number = Date.now): TaskSlotClaims {
  let lastPrunedAt = Number.NEGATIVE_INFINITY;
  return {
    async claim(task, slot) {
      const em = orm.em.fork();
      if (now() - lastPrunedAt >= PRUNE_EVERY_MS) {
        lastPrunedAt = now();
        await em.execute(`DELETE FROM scheduled_task_slots WHERE slot < now() - ${RETENTION}`);
      }
      const claimed = await em.execute<Array<{ task: string }>>(
        'INSERT INTO scheduled_task_slots (task, slot, claimed_by) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING task',
        [task, slotMinute(slot), claimedBy],
      );
      return claimed.length === 1;
    },
  };
}
