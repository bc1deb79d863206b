import { Migration } from '@mikro-orm/migrations';

/** Automations and their runs (the queue the runners claim, and the run log). See docs/automations.md. */
export class Migration20261125000100_automations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE automations (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        -- The principal the runs act as: its creator or a service account of the organization.
        owner_id text NOT NULL REFERENCES users (id),
        trigger_type text NOT NULL CHECK (trigger_type IN ('http', 'schedule', 'event')),
        -- http: SHA-256 of the hook secret (the plaintext is shown once).
        hook_secret_hash text,
        hook_secret_prefix text,
        -- schedule: a 5-field cron expression in an IANA time zone, and the next slot to run.
        schedule_cron text,
        schedule_timezone text,
        next_run_at timestamptz,
        -- event: an event type, a per-model record type, prefix.* or *.
        event_pattern text,
        include_own_runs boolean NOT NULL DEFAULT false,
        actions jsonb NOT NULL,
        max_runs_per_minute integer NOT NULL DEFAULT 60 CHECK (max_runs_per_minute BETWEEN 1 AND 6000),
        -- A token bucket of runs: capacity max_runs_per_minute, refilled at max_runs_per_minute / 60 per second.
        run_tokens double precision NOT NULL DEFAULT 60,
        run_tokens_at timestamptz NOT NULL DEFAULT now(),
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((trigger_type = 'http') = (hook_secret_hash IS NOT NULL)),
        CHECK ((trigger_type = 'schedule') = (schedule_cron IS NOT NULL AND schedule_timezone IS NOT NULL)),
        CHECK ((trigger_type = 'event') = (event_pattern IS NOT NULL))
      )`);
    this.addSql('CREATE INDEX automations_organization ON automations (organization_id, id)');
    // The event outbox reads the enabled event automations of one organization on every change.
    this.addSql("CREATE INDEX automations_event_routing ON automations (organization_id) WHERE enabled AND trigger_type = 'event'");
    this.addSql("CREATE INDEX automations_schedule_due ON automations (next_run_at) WHERE enabled AND trigger_type = 'schedule'");
    this.addSql('CREATE INDEX automations_owner ON automations (owner_id) WHERE enabled');

    this.addSql(`
      CREATE TABLE automation_runs (
        id uuid PRIMARY KEY,
        automation_id uuid NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('http', 'schedule', 'event', 'manual')),
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'succeeded', 'failed', 'skipped')),
        -- What the run was given: the hook's body, the manual input, the schedule slot.
        input jsonb NOT NULL DEFAULT '{}',
        -- The event that triggered it (event trigger).
        event jsonb,
        -- The automations whose runs led to this one, oldest first; its depth is this length + 1.
        chain text[] NOT NULL DEFAULT '{}',
        -- A schedule slot is run once, however many runners look at it.
        scheduled_for timestamptz,
        triggered_by text,
        attempts integer NOT NULL DEFAULT 0,
        -- Set when the run took its token from the automation's bucket (automations.runs.admit).
        admitted_at timestamptz,
        locked_until timestamptz,
        queued_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        error text,
        -- Per action: its type, status and result (record id) or error.
        action_results jsonb NOT NULL DEFAULT '[]',
        UNIQUE (automation_id, scheduled_for)
      )`);
    this.addSql('CREATE INDEX automation_runs_of_automation ON automation_runs (automation_id, id DESC)');
    // What the runners claim: runs not finished, oldest first.
    this.addSql("CREATE INDEX automation_runs_due ON automation_runs (queued_at) WHERE status = 'queued'");

    this.addSql(`
      CREATE TABLE automation_hook_failures (
        bucket text PRIMARY KEY,
        window_started_at timestamptz NOT NULL,
        failures integer NOT NULL
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE automation_hook_failures');
    this.addSql('DROP TABLE automation_runs');
    this.addSql('DROP TABLE automations');
  }
}
