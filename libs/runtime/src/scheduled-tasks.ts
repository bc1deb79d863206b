import { processDueAccountDeletions, pruneIdleRateLimitBuckets } from '@mrp/authz';
import { retryPendingIndexes } from '@mrp/data-models';
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

export function scheduledTasks(): ScheduledTask[] {
  return [
    {
      name: 'process-account-deletions',
      schedule: '*/5 * * * *',
      description: 'Marks accounts whose deletion grace period has ended as deleted',
      run: (runtime) => processDueAccountDeletions(runtime.orm.em.fork()),
    },
    {
      name: 'prune-rate-limit-buckets',
      schedule: '*/10 * * * *',
      description: 'Drops API-key rate-limit buckets that have refilled completely',
      run: (runtime) =>
        pruneIdleRateLimitBuckets(runtime.orm, {
          ratePerSecond: runtime.config.publicApiRatePerSecond,
          burst: runtime.config.publicApiBurst,
        }),
    },
    {
      name: 'sweep-webhook-deliveries',
      schedule: '* * * * *',
      description: 'Delivers every due webhook delivery no worker holds (the fallback when a worker is down or a wake-up was lost)',
      run: (runtime) => runtime.webhooks.createWorker(runtime.invocationDeps).drain(),
    },
    {
      name: 'retry-field-indexes',
      schedule: '* * * * *',
      description: 'Builds or drops expression indexes of fields whose index change has not completed',
      run: (runtime) => retryPendingIndexes(runtime.orm, runtime.logger),
    },
  ];
}
