import { Migration } from '@mikro-orm/migrations';
import { jobQueueSchemaSql } from '../queue/job-queue';

/** Installs pg-boss's schema (version pinned in package.json): the job queue's tables. */
export class Migration20261122000500_job_queue extends Migration {
  override async up(): Promise<void> {
    this.addSql(jobQueueSchemaSql());
  }

  override async down(): Promise<void> {
    this.addSql('DROP SCHEMA pgboss CASCADE');
  }
}
