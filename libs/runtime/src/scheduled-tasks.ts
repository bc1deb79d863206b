import { PRUNE_IDEMPOTENT_REQUESTS } from '@mrp/platform';
import { PRUNE_WEBHOOK_DELIVERIES } from '@mrp/events';
import { RUN_AUTOMATION_SCHEDULES } from '@mrp/automations';
import { createAutomationRunner } from './automation-runner-as-system';
import { invokeAsSystem } from './invoke-as-system';
import type { Runtime } from './runtime';

/**
 * The scheduled tasks. The cron-runner runs them on `schedule`; the api serves each at
 * `/cron/<name>` as a fallback trigger for platforms that bring their own scheduler.
 */
export interface ScheduledTask {
  name: string;
  /** Cron expression (seconds field optional), evaluated in UTC. */
  schedule: string;
  description: string;
  /** Returns how many items it processed. Each run works in its own ORM context. */
  run(runtime: Runtime): Promise<number>;
}

/** The job queue of a task, which its schedule fills (created by the runtime's migrations). */
export function taskQueue(taskName: string): string {
  return `task.${taskName}`;
}

interface ProcedureTask extends Omit<ScheduledTask, 'run'> {
  /** A system procedure answering `{ processed }`. */
  procedure: string;
  /** Exactly what the task's principal holds: the procedure's own permission. */
  permissions: readonly string[];
  input?(runtime: Runtime): unknown;
}

/** A task that is one procedure, run as the task's own system principal (`system:<name>`). */
function procedureTask({ procedure, permissions, input, ...task }: ProcedureTask): ScheduledTask {
  return {
    ...task,
    async run(runtime) {
      const output = await invokeAsSystem<{ processed: number }>(runtime, {
        task: task.name,
        procedure,
        permissions,
        input: input?.(runtime) ?? {},
      });
      return output.processed;
    },
  };
}

export function scheduledTasks(): ScheduledTask[] {
  return [
    {
      name: 'process-account-deletions',
      schedule: '*/5 * * * *',
      description: 'Deletes the accounts whose deletion grace period has ended, then disables the automations they owned; counts the accounts',
      async run(runtime) {
        const call = (procedure: string) =>
          invokeAsSystem<{ processed: number }>(runtime, { task: 'process-account-deletions', procedure, permissions: ['system.process-account-deletions'] });
        const { processed } = await call('accounts.processDueDeletions');
        await call('automations.disableOrphaned');
        return processed;
      },
    },
    procedureTask({
      name: 'prune-rate-limit-buckets',
      schedule: '*/10 * * * *',
      description: 'Drops API-key rate-limit buckets that have refilled completely',
      procedure: 'apiKeys.pruneRateLimitBuckets',
      permissions: ['system.prune-rate-limit-buckets'],
      input: (runtime) => ({ ratePerSecond: runtime.config.publicApiRatePerSecond, burst: runtime.config.publicApiBurst }),
    }),
    procedureTask({
      name: 'prune-idempotent-requests',
      schedule: '23 * * * *',
      description: 'Deletes the answers kept for Idempotency-Key retries once their 24 hours are over',
      procedure: 'idempotency.pruneExpired',
      permissions: [PRUNE_IDEMPOTENT_REQUESTS],
    }),
    {
      name: 'sweep-webhook-deliveries',
      schedule: '* * * * *',
      description: 'Delivers every due webhook delivery no worker holds (the fallback when a worker is down or a wake-up was lost)',
      run: (runtime) => runtime.webhooks.createWorker(runtime.invocationDeps).drain(),
    },
    procedureTask({
      name: 'prune-webhook-deliveries',
      schedule: '17 * * * *',
      description: 'Deletes settled webhook deliveries and their attempts older than WEBHOOK_RETENTION_DAYS',
      procedure: 'webhooks.deliveries.prune',
      permissions: [PRUNE_WEBHOOK_DELIVERIES],
      input: (runtime) => ({ retentionDays: runtime.config.webhookRetentionDays }),
    }),
    {
      name: 'run-automation-schedules',
      schedule: '* * * * *',
      description:
        'Queues a run for each automation schedule slot that has come, then runs the due automation runs no runner has taken (the fallback when no runner is up); counts the slots queued',
      async run(runtime) {
        const { processed } = await invokeAsSystem<{ processed: number }>(runtime, {
          task: 'run-automation-schedules',
          procedure: 'automations.schedules.enqueueDue',
          permissions: [RUN_AUTOMATION_SCHEDULES],
        });
        await createAutomationRunner(runtime).drain();
        return processed;
      },
    },
    procedureTask({
      name: 'send-calendar-reminders',
      schedule: '* * * * *',
      description: "Notifies records' creators of the calendar reminders of DATETIME fields that have come due",
      procedure: 'dataModels.reminders.sendDue',
      permissions: ['system.send-calendar-reminders'],
    }),
    procedureTask({
      name: 'retry-field-indexes',
      schedule: '* * * * *',
      description: 'Builds or drops expression indexes of fields whose index change has not completed',
      procedure: 'dataModels.fields.retryIndexes',
      permissions: ['system.retry-field-indexes'],
    }),
  ];
}
