import PgBoss from 'pg-boss';

/**
 * pg-boss keeps its tables in their own schema, created by our migration (never at runtime). No
 * queue uses it yet: webhook deliveries are their own table (decision 36).
 */
export const JOB_QUEUE_SCHEMA = 'pgboss';

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
