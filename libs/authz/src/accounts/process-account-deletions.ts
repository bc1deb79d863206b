import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The `process-account-deletions` task: marks every account whose grace period has ended as
 * deleted (sessions and API keys of a deleted account are refused from then on) and releases its
 * address: it stops counting as vouched for, so the person may come back under a new identity
 * provider account (a new `sub`) with the same address. Idempotent;
 * returns how many accounts it deleted. Served by the partial index users_deletion_due.
 */
export async function processDueAccountDeletions(em: EntityManager, now: Date = new Date()): Promise<number> {
  const deleted = await em.execute<Array<{ id: string }>>(
    `UPDATE users SET deleted_at = ?, email_verified = false, updated_at = now()
      WHERE deletion_scheduled_for <= ? AND deleted_at IS NULL
      RETURNING id`,
    [now, now],
  );
  return deleted.length;
}
