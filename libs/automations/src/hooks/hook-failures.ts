import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, sqlTextArray } from '@mrp/platform';

/** Wrong secrets a minute, per client address and per automation; past either, further wrong secrets it covers get 429. */
export const HOOK_FAILURES_PER_ADDRESS = 10;
export const HOOK_FAILURES_PER_AUTOMATION = 30;
const WINDOW_SECONDS = 60;

const buckets = (automationId: string, clientAddress: string) => [`automation:${automationId}`, `address:${clientAddress}`];

/**
 * Refuses a wrong or missing secret with 429 while its address or its automation has had too many
 * this minute (the right secret is never asked: it always passes).
 */
export async function assertHookNotLocked(em: EntityManager, automationId: string, clientAddress: string): Promise<void> {
  const [automationBucket, addressBucket] = buckets(automationId, clientAddress);
  const [locked] = await em.execute<Array<{ retry_after: number }>>(
    `SELECT ceil(extract(epoch FROM window_started_at + make_interval(secs => ?) - now()))::int AS retry_after
       FROM automation_hook_failures
      WHERE window_started_at > now() - make_interval(secs => ?)
        AND ((bucket = ? AND failures >= ?) OR (bucket = ? AND failures >= ?))
      ORDER BY retry_after DESC LIMIT 1`,
    [WINDOW_SECONDS, WINDOW_SECONDS, automationBucket, HOOK_FAILURES_PER_AUTOMATION, addressBucket, HOOK_FAILURES_PER_ADDRESS],
  );
  if (locked) {
    const retryAfter = String(Math.max(1, locked.retry_after));
    throw new DomainError('rate_limited', 'Too many wrong secrets; try again later', undefined, { 'Retry-After': retryAfter });
  }
}

/** Counts a wrong or missing secret against the address and the automation (a fixed window of a minute). */
export async function recordHookFailure(em: EntityManager, automationId: string, clientAddress: string): Promise<void> {
  await em.execute(
    `INSERT INTO automation_hook_failures (bucket, window_started_at, failures)
     SELECT bucket, now(), 1 FROM unnest(?::text[]) AS b(bucket)
     ON CONFLICT (bucket) DO UPDATE SET
       failures = CASE WHEN automation_hook_failures.window_started_at > now() - make_interval(secs => ?)
                       THEN automation_hook_failures.failures + 1 ELSE 1 END,
       window_started_at = CASE WHEN automation_hook_failures.window_started_at > now() - make_interval(secs => ?)
                                THEN automation_hook_failures.window_started_at ELSE now() END`,
    [sqlTextArray(buckets(automationId, clientAddress)), WINDOW_SECONDS, WINDOW_SECONDS],
  );
}

/** Forgets windows long over (called by the schedules task). */
export async function pruneHookFailures(em: EntityManager): Promise<void> {
  await em.execute("DELETE FROM automation_hook_failures WHERE window_started_at < now() - interval '1 hour'");
}
