import type { EntityManager } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';
import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { PreparedStatement, PreparedValue } from '../database/driver/prepared-statement';
import { DirectPgConnection } from '../database/driver/direct-pg-driver';
import type { Orm } from '../database/orm';
import type { Logger } from '../logging/logger';
import { listenOnChannel, type ChannelListener } from '../database/channel-listener';

/** pg-boss keeps its tables in their own schema, created by a migration (never at run time: `migrate: false`). */
export const JOB_QUEUE_SCHEMA = 'pgboss';

/** The channel an enqueuing transaction notifies at commit, with the queue's name as payload. */
export const JOBS_DUE_CHANNEL = 'jobs_due';

/** pg-boss's own DDL for its pinned version, without the transaction it wraps itself in (the migration provides one). */
export function jobQueueSchemaSql(): string {
  return PgBoss.getConstructionPlans(JOB_QUEUE_SCHEMA)
    .replace(/^\s*BEGIN;/, '')
    .replace(/COMMIT;\s*$/, '');
}

/**
 * What a job carries (JSON). A job about one organization's work names it: workers share their
 * slots among the organizations with jobs waiting (queues that need it read this field).
 */
export interface JobData {
  organizationId?: string | null;
  [key: string]: unknown;
}

export interface QueueDefinition {
  name: string;
  /**
   * `standard`: every job runs. `stately`: at most one job runs and one waits, across every
   * process; a job queued while one already waits is dropped (a scheduled task's late slot).
   */
  policy: 'standard' | 'stately';
  /** Runs after the first, when a handler throws or its process dies mid-job. */
  retryLimit: number;
  retryDelaySeconds: number;
  /** Doubles the delay at each retry (with jitter, as pg-boss computes it). */
  retryBackoff?: boolean;
  /** A job still running this long is presumed dead: it is failed (and retried) for another worker to take. */
  expireInSeconds: number;
}

export interface EnqueueOptions {
  /** The job may start this many seconds after the enqueuing statement (database time). */
  delaySeconds?: number;
  /** The job may start at this instant: a time the database gave, so that one clock decides. */
  startAt?: Date;
  /** Overrides the queue's expiry for this job. */
  expireInSeconds?: number;
  /**
   * Among a queue's due jobs, fetches take the highest priority first, then the oldest (pg-boss's
   * order); 0 when not given.
   */
  priority?: number;
}

/** A job of a batch that may span queues. */
export interface QueuedJob<TData extends JobData = JobData> extends EnqueueOptions {
  queue: string;
  data: TData;
}

export interface Job<TData extends JobData = JobData> {
  id: string;
  queue: string;
  data: TData;
}

/** Returns: the job is completed. Throws: it is failed, and retried while its queue allows. */
export type JobHandler<TData extends JobData = JobData> = (job: Job<TData>) => Promise<void>;

export interface WorkOptions {
  /** Jobs of the queue this process runs at once. */
  concurrency?: number;
  /**
   * Workers are woken by the NOTIFY of each enqueuing commit; they also look every this many
   * seconds, for delayed jobs coming due and for a wake-up lost with a dropped connection.
   */
  pollIntervalSeconds?: number;
}

export interface ScheduleOptions {
  /** Overrides the queue's expiry for the jobs of this schedule. */
  expireInSeconds?: number;
}

export interface JobQueue {
  /**
   * Queues a job in the caller's transaction (`em`'s): it exists once that commits and never if it
   * rolls back, and the commit wakes the queue's workers. Without a transaction, it commits alone.
   */
  enqueue<TData extends JobData>(em: EntityManager, queue: string, data: TData, options?: EnqueueOptions): Promise<string>;
  /** `enqueue` for many jobs of one queue, in one statement. */
  enqueueMany<TData extends JobData>(em: EntityManager, queue: string, jobs: ReadonlyArray<{ data: TData } & EnqueueOptions>): Promise<void>;
  /**
   * `enqueueMany` over any queues, sent with the transaction's COMMIT in its round trip (an outbox
   * write nothing in the transaction reads back). It wakes nobody unless `wake` says so (a NOTIFY
   * with the COMMIT: for rare writes): a hot path calls `announce` once the transaction committed,
   * so that no commit holds PostgreSQL's notification lock (decision 89).
   */
  enqueueAtCommit(em: EntityManager, jobs: readonly QueuedJob[], options?: { wake?: boolean }): Promise<void>;
  /**
   * Tells the workers of `queues` on every process that jobs are due: coalesced, at most one
   * notification per few milliseconds per process, the queues named since the last one.
   */
  announce(queues: Iterable<string>): void;
  /**
   * Takes up to `limit` due jobs of the queue for the caller, who then completes or fails them
   * (`complete`, `fail`); one it never settles expires and runs again. For consumers that pace
   * their own work (the webhook worker shares its slots among queues).
   */
  fetch<TData extends JobData>(queue: string, limit: number): Promise<Array<Job<TData>>>;
  /** Completes fetched jobs of one queue, in `em`'s transaction when given. */
  complete(queue: string, ids: readonly string[], em?: EntityManager): Promise<void>;
  /** Fails fetched jobs of one queue: they run again while the queue's retries allow. */
  fail(queue: string, ids: readonly string[], reason: string): Promise<void>;
  /**
   * Calls `wake` with a queue's name when jobs of it are announced or enqueued with a wake-up, and
   * with each of `queues` when the listening (re)starts; from `start` on. Returns an unsubscribe.
   */
  onDue(queues: readonly string[], wake: (queue: string) => void): () => void;
  /** Runs the queue's jobs in this process once `start` has run, `concurrency` at a time. */
  work<TData extends JobData>(queue: string, options: WorkOptions, handler: JobHandler<TData>): Promise<void>;
  /**
   * Takes up to `limit` jobs of the queue that are due (or all waiting ones, with `ignoreDelay`)
   * and runs them here, one after the other; answers how many ran. For tests and manual triggers.
   */
  drain<TData extends JobData>(queue: string, handler: JobHandler<TData>, options?: { ignoreDelay?: boolean; limit?: number }): Promise<number>;
  /**
   * The queue's cron schedule (5 fields, UTC), shared by every process on the database; null
   * removes it. pg-boss enqueues one job per slot whatever the number of processes (minute
   * granularity); a process with `timekeeping` turns slots into jobs.
   */
  schedule(queue: string, cron: string | null, options?: ScheduleOptions): Promise<void>;
  /** Starts the workers given to `work`, their wake-ups, expiry of dead jobs and (with `timekeeping`) schedules. */
  start(): Promise<void>;
  /** Stops taking jobs and waits up to `timeoutMs` for running ones; those still running are failed (and retried). */
  stop(timeoutMs?: number): Promise<void>;
}

/** At most one `announce` notification per this many milliseconds from one process (decision 89). */
const ANNOUNCE_INTERVAL_MS = 10;

export interface JobQueueOptions {
  orm: Orm;
  /** For the LISTEN connection that wakes workers: PostgreSQL itself (a transaction pooler keeps no LISTEN). */
  listenUrl: string;
  logger: Logger;
  /** This process turns schedule slots into jobs (the cron-runner). */
  timekeeping?: boolean;
  /** How often expired jobs are looked for (one process on the database does it per interval). */
  maintenanceIntervalSeconds?: number;
}

type Db = PgBoss.Db;

function directConnection(source: { getConnection(): unknown }): DirectPgConnection {
  const connection = source.getConnection();
  if (!(connection instanceof DirectPgConnection)) throw new Error('The job queue needs the ORM of createOrm (its DirectPgDriver)');
  return connection;
}

/** pg-boss's statements on `connection`, in the transaction `ctx` when given, else autocommit on the ORM's pool. */
function dbOn(connection: DirectPgConnection, ctx?: unknown): Db {
  return {
    async executeSql(text, values = []) {
      return { rows: await connection.executeText(text, values, ctx as never) };
    },
  };
}

/**
 * pg-boss's own statement, named, so that a connection parses and plans it once: written with the
 * COMMIT of every change that queues a job (a webhook delivery's), its planning would cost about
 * what its execution does. Named after the text, as our prepared statements are.
 */
const namedStatements = new Map<string, PreparedStatement>();
function named(text: string): PreparedStatement {
  let statement = namedStatements.get(text);
  if (!statement) {
    statement = {
      name: `pgboss_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`,
      text,
      plan: { purpose: "pg-boss's job insert", indexes: [] },
    };
    namedStatements.set(text, statement);
  }
  return statement;
}

const preparedValue = (value: unknown): PreparedValue =>
  value === undefined || value === null ? null : typeof value === 'object' ? JSON.stringify(value) : (value as PreparedValue);

function startAfter(options: EnqueueOptions | undefined): string | undefined {
  if (options?.startAt) return options.startAt.toISOString();
  const delay = options?.delaySeconds;
  // A bare number of seconds: pg-boss adds it to the database's now(), so no clock but PostgreSQL's counts.
  return delay !== undefined && delay > 0 ? String(Math.ceil(delay)) : undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The job queue on pg-boss, its statements on the ORM's pool: no second pool, the same statement limits. */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { orm, logger } = options;
  const connection = directConnection(orm.em);
  const boss = new PgBoss({
    db: dbOn(connection),
    schema: JOB_QUEUE_SCHEMA,
    migrate: false,
    supervise: true,
    schedule: options.timekeeping ?? false,
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60,
  });
  boss.on('error', (error: Error & { queue?: string }) => logger.warn({ queue: error.queue, error: error.message }, 'job queue error'));

  interface Registration {
    queue: string;
    options: WorkOptions;
    handler: JobHandler<JobData>;
  }
  const registrations: Registration[] = [];
  const workerIds = new Map<string, string[]>();
  let started = false;
  let listener: ChannelListener | undefined;

  const asJob = (queue: string, job: PgBoss.Job<JobData>): Job<JobData> => ({ id: job.id, queue, data: job.data });

  async function startWorkers({ queue, options: workOptions, handler }: Registration): Promise<void> {
    const ids = workerIds.get(queue) ?? [];
    workerIds.set(queue, ids);
    for (let slot = 0; slot < (workOptions.concurrency ?? 1); slot++) {
      ids.push(
        await boss.work<JobData>(queue, { batchSize: 1, pollingIntervalSeconds: workOptions.pollIntervalSeconds ?? 10 }, async (jobs) => {
          for (const job of jobs) await handler(asJob(queue, job));
        }),
      );
    }
  }

  const dueListeners = new Map<string, Set<(queue: string) => void>>();
  const wake = (queue: string | undefined) => {
    const queues = queue === undefined ? [...new Set([...workerIds.keys(), ...dueListeners.keys()])] : [queue];
    for (const name of queues) {
      for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
      for (const listener of dueListeners.get(name) ?? []) listener(name);
    }
  };
  const listen = async () => {
    if (listener || (registrations.length === 0 && dueListeners.size === 0)) return;
    listener = await listenOnChannel({
      databaseUrl: options.listenUrl,
      channel: JOBS_DUE_CHANNEL,
      purpose: 'job queue',
      logger,
      onNotification: (payload) => {
        for (const queue of payload.split(',')) wake(queue);
      },
      // Whatever was queued while nobody listened.
      onListening: () => wake(undefined),
    });
  };

  const announced = new Set<string>();
  let announceTimer: NodeJS.Timeout | undefined;
  let lastAnnouncedAt = Number.NEGATIVE_INFINITY;
  const announcing = new Set<Promise<unknown>>();
  const sendAnnouncement = () => {
    announceTimer = undefined;
    lastAnnouncedAt = performance.now();
    const queues = [...announced];
    announced.clear();
    const sent = connection
      .executeText('SELECT pg_notify($1, $2)', [JOBS_DUE_CHANNEL, queues.join(',')])
      .catch((error: unknown) => logger.warn({ err: error, queues }, 'could not wake the job queue workers; their poll will find the jobs'))
      .finally(() => announcing.delete(sent));
    announcing.add(sent);
  };

  const notifyAtCommit = (db: Db, queue: string) => db.executeSql('SELECT pg_notify($1, $2)', [JOBS_DUE_CHANNEL, queue]);

  return {
    async enqueue(em, queue, data, enqueueOptions) {
      const db = dbOn(directConnection(em), em.getTransactionContext());
      const id = await boss.send(queue, data, { db, startAfter: startAfter(enqueueOptions) });
      if (id === null) throw new Error(`No job was queued on ${queue}: the queue does not exist or its policy holds one already`);
      if (!enqueueOptions?.delaySeconds) await notifyAtCommit(db, queue);
      return id;
    },
    async enqueueMany(em, queue, jobs) {
      if (jobs.length === 0) return;
      const db = dbOn(directConnection(em), em.getTransactionContext());
      await boss.insert(
        jobs.map((job) => ({ name: queue, data: job.data, startAfter: startAfter(job), ...(job.priority ? { priority: job.priority } : {}) })),
        { db },
      );
      if (jobs.some((job) => !job.delaySeconds)) await notifyAtCommit(db, queue);
    },
    async enqueueAtCommit(em, jobs, enqueueOptions = {}) {
      if (jobs.length === 0) return;
      const connection = directConnection(em);
      const db: Db = {
        async executeSql(text, values = []) {
          await connection.executePreparedAtCommit(named(text), values.map(preparedValue), em.getTransactionContext());
          return { rows: [] };
        },
      };
      if (enqueueOptions.wake) {
        await connection.executeTextAtCommit('SELECT pg_notify($1, $2)', [JOBS_DUE_CHANNEL, [...new Set(jobs.map((job) => job.queue))].join(',')], em.getTransactionContext());
      }
      await boss.insert(
        jobs.map((job) => ({
          name: job.queue,
          data: job.data,
          startAfter: startAfter(job),
          ...(job.expireInSeconds ? { expireInSeconds: job.expireInSeconds } : {}),
          ...(job.priority ? { priority: job.priority } : {}),
        })),
        { db },
      );
    },
    announce(queues) {
      for (const queue of queues) announced.add(queue);
      if (announced.size === 0 || announceTimer) return;
      const wait = lastAnnouncedAt + ANNOUNCE_INTERVAL_MS - performance.now();
      if (wait <= 0) sendAnnouncement();
      else {
        announceTimer = setTimeout(sendAnnouncement, wait);
        announceTimer.unref();
      }
    },
    async fetch<TData extends JobData>(queue: string, limit: number) {
      const jobs = await boss.fetch<TData>(queue, { batchSize: limit });
      return jobs.map((job) => asJob(queue, job as PgBoss.Job<JobData>) as Job<TData>);
    },
    async complete(queue, ids, em) {
      if (ids.length === 0) return;
      await boss.complete(queue, [...ids], em ? { db: dbOn(directConnection(em), em.getTransactionContext()) } : undefined);
    },
    async fail(queue, ids, reason) {
      if (ids.length === 0) return;
      // pg-boss takes ids and an output together (its typings name one id only with an output).
      await boss.fail(queue, [...ids] as unknown as string, { message: reason });
    },
    onDue(queues, listener) {
      for (const queue of queues) {
        const listeners = dueListeners.get(queue) ?? new Set();
        listeners.add(listener);
        dueListeners.set(queue, listeners);
      }
      if (started) void listen().catch((error: unknown) => logger.error({ err: error }, 'listening for due jobs failed'));
      return () => {
        for (const queue of queues) dueListeners.get(queue)?.delete(listener);
      };
    },
    async work(queue, workOptions, handler) {
      const registration = { queue, options: workOptions, handler: handler as JobHandler<JobData> };
      registrations.push(registration);
      if (started) {
        await startWorkers(registration);
        wake(queue);
      }
    },
    async drain(queue, handler, drainOptions = {}) {
      const jobs = await boss.fetch<JobData>(queue, { batchSize: drainOptions.limit ?? 100, ignoreStartAfter: drainOptions.ignoreDelay ?? false });
      for (const job of jobs) {
        try {
          await handler(asJob(queue, job) as Job<never>);
          await boss.complete(queue, job.id);
        } catch (error) {
          await boss.fail(queue, job.id, { message: errorMessage(error) });
        }
      }
      return jobs.length;
    },
    async schedule(queue, cron, scheduleOptions = {}) {
      if (cron === null) {
        await boss.unschedule(queue);
        return;
      }
      await boss.schedule(queue, cron, {}, { tz: 'UTC', ...(scheduleOptions.expireInSeconds ? { expireInSeconds: scheduleOptions.expireInSeconds } : {}) });
    },
    async start() {
      if (started) return;
      await boss.start();
      started = true;
      for (const registration of registrations) await startWorkers(registration);
      await listen();
    },
    async stop(timeoutMs = 30_000) {
      clearTimeout(announceTimer);
      if (announced.size > 0) sendAnnouncement();
      await Promise.all(announcing);
      await listener?.close();
      listener = undefined;
      if (!started) return;
      started = false;
      await boss.stop({ graceful: true, wait: true, close: false, timeout: timeoutMs });
      workerIds.clear();
    },
  };
}

/**
 * A migration that creates or deletes job queues, through pg-boss's own `createQueue` on the
 * migration's transaction: a queue is a row and a table of pg-boss's schema, so it is made
 * here, never at run time.
 */
export abstract class JobQueueMigration extends Migration {
  protected async createJobQueues(queues: readonly QueueDefinition[]): Promise<void> {
    const boss = this.jobQueue();
    for (const queue of queues) {
      await boss.createQueue(queue.name, {
        name: queue.name,
        policy: queue.policy,
        retryLimit: queue.retryLimit,
        retryDelay: queue.retryDelaySeconds,
        retryBackoff: queue.retryBackoff ?? false,
        expireInSeconds: queue.expireInSeconds,
      });
    }
  }

  protected async deleteJobQueues(names: readonly string[]): Promise<void> {
    const boss = this.jobQueue();
    for (const name of names) await boss.deleteQueue(name);
  }

  /** pg-boss on the migration's transaction, for queue statements only (nothing started). */
  protected jobQueue(): PgBoss {
    return new PgBoss({ db: dbOn(directConnection(this.driver), this.ctx), schema: JOB_QUEUE_SCHEMA, migrate: false, supervise: false, schedule: false });
  }
}
