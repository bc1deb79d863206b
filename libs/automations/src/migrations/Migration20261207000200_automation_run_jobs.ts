import { JobQueueMigration } from '@mrp/platform';

/**
 * Automation runs are jobs of the `automation-runs` queue; `automation_runs` stays their log
 * (status, attempts, outcome). Each run still queued gets its job, ordered by its turn in its
 * organization (decision 156); the hand-written claim's lease column goes.
 */
export class Migration20261207000200_automation_run_jobs extends JobQueueMigration {
  override async up(): Promise<void> {
    await this.createJobQueues([
      // A job expires (its runner presumed dead) after a minute, as the claim's lease did; the run's own
      // attempts (MAX_RUN_ATTEMPTS, counted at admission) decide when it is given up.
      { name: 'automation-runs', policy: 'standard', retryLimit: 10, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 60 },
    ]);
    const queued = await this.execute(
      `SELECT id, organization_id, automation_id, chain,
              row_number() OVER (PARTITION BY organization_id ORDER BY queued_at, id) - 1 AS turn
         FROM automation_runs WHERE status = 'queued'`,
    );
    if (queued.length > 0) {
      await this.jobQueue().insert(
        queued.map((row) => ({
          name: 'automation-runs',
          data: {
            runId: row.id as string,
            organizationId: row.organization_id as string,
            automationId: row.automation_id as string,
            chain: row.chain as string[],
            turn: Number(row.turn),
          },
          priority: -Number(row.turn),
        })),
      );
    }
    this.addSql('ALTER TABLE automation_runs DROP COLUMN locked_until');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE automation_runs ADD COLUMN locked_until timestamptz');
    await this.deleteJobQueues(['automation-runs']);
  }
}
