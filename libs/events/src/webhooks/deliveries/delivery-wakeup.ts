import type { EntityManager } from '@mikro-orm/postgresql';

/** The channel delivery workers LISTEN on; a notification means "deliveries may be due now". */
export const DELIVERIES_DUE_CHANNEL = 'webhook_deliveries_due';

/**
 * Wakes the delivery workers. Inside a transaction PostgreSQL holds the notification until
 * commit (and drops it on rollback), so a worker never looks before the deliveries are visible.
 */
export async function wakeDeliveryWorkers(em: EntityManager): Promise<void> {
  await em.execute(`SELECT pg_notify('${DELIVERIES_DUE_CHANNEL}', '')`);
}
