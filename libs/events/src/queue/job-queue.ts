import PgBoss from 'pg-boss';

/** pg-boss keeps its tables in their own schema, created by our migration (never at runtime). */
export const JOB_QUEUE_SCHEMA = 'pgboss';

export const QUEUES = {
  webhookDeliveries: 'webhook-deliveries',
} as const;

/** pg-boss's own DDL for its pinned version, without the transaction it wraps itself in (the migration provides one). */
export function jobQueueSchemaSql(): string {
  return PgBoss.getConstructionPlans(JOB_QUEUE_SCHEMA)
    .replace(/^\s*BEGIN;/, '')
    .replace(/COMMIT;\s*$/, '');
}

export interface JobQueueOptions {
  databaseUrl: string;
  /** Size of pg-boss's own connection pool. */
  max?: number;
}

export function createJobQueue({ databaseUrl, max = 5 }: JobQueueOptions): PgBoss {
  return new PgBoss({ connectionString: databaseUrl, schema: JOB_QUEUE_SCHEMA, migrate: false, max });
}

export async function ensureQueues(boss: PgBoss): Promise<void> {
  for (const name of Object.values(QUEUES)) {
    if (!(await boss.getQueue(name))) await boss.createQueue(name, { name, policy: 'standard' });
  }
}
