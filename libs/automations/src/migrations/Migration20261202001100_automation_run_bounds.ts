import { Migration } from '@mikro-orm/migrations';

/**
 * The bounds that keep one organization's automations from stalling every other's (see
 * docs/automations.md, "Bounds"): the chain a run belongs to, runs counted per chain root, runs
 * over a bound recorded as one skipped row per automation, minute and reason, and the index the
 * runners claim by organization with.
 */
export class Migration20261202001100_automation_run_bounds extends Migration {
  override async up(): Promise<void> {
    // The first run of the chain this run belongs to (itself when no automation caused it).
    this.addSql('ALTER TABLE automation_runs ADD COLUMN root_run_id uuid');
    // A skipped row standing for the runs over one bound in one minute: the bound, the minute, how many.
    this.addSql(`ALTER TABLE automation_runs ADD COLUMN skip_reason text CHECK (skip_reason IN ('rate', 'chain', 'organization-queue'))`);
    this.addSql('ALTER TABLE automation_runs ADD COLUMN skip_window timestamptz');
    this.addSql('ALTER TABLE automation_runs ADD COLUMN skipped_runs integer');
    this.addSql(
      'CREATE UNIQUE INDEX automation_runs_skipped_per_minute ON automation_runs (automation_id, skip_window, skip_reason) WHERE skip_window IS NOT NULL',
    );
    // Claimed a fair share per organization, and counted per organization against its queue cap.
    this.addSql("CREATE INDEX automation_runs_due_by_organization ON automation_runs (organization_id, queued_at) WHERE status = 'queued'");
    this.addSql('DROP INDEX automation_runs_due');
    // Runs queued so far by each chain, by its root run; a row is dropped a day after its last run was queued.
    this.addSql(`
      CREATE TABLE automation_chain_runs (
        root_run_id uuid PRIMARY KEY,
        runs integer NOT NULL,
        last_queued_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE automation_chain_runs');
    this.addSql("CREATE INDEX automation_runs_due ON automation_runs (queued_at) WHERE status = 'queued'");
    this.addSql('DROP INDEX automation_runs_due_by_organization');
    this.addSql('DROP INDEX automation_runs_skipped_per_minute');
    this.addSql('ALTER TABLE automation_runs DROP COLUMN root_run_id, DROP COLUMN skip_reason, DROP COLUMN skip_window, DROP COLUMN skipped_runs');
  }
}
