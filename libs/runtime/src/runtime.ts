import {
  ConfigError,
  FeatureFlagStore,
  ProcedureRegistry,
  createLogger,
  OrganizationShare,
  createOrm,
  createJobQueue,
  directDatabaseUrl,
  type EventDispatcher,
  type JobQueue,
  type InvocationDeps,
  type Logger,
  type Orm,
  type PlatformConfig,
} from '@mrp/platform';
import { InProcessEventBus, createEventDispatcher, listenForRouteChanges, type RouteCache } from '@mrp/events';
import { createNotifier, createSmtpSender, type Notifier, type SmtpSender } from '@mrp/notifications';
import { createAutomations, type Automations } from '@mrp/automations';
import { createViews, type Views } from '@mrp/views';
import { recordRowAccessRoles } from '@mrp/data-models';
import { ALL_MODULES } from './modules';
import { allProcedures } from './procedures';
import { scheduledTasks, type ScheduledTask } from './scheduled-tasks';
import { createWebhooks, loadSecretResolver, type WebhookOptions, type Webhooks } from './webhooks';

/** The services procedures and tasks are built from. */
export interface RuntimeServices {
  config: PlatformConfig;
  logger: Logger;
  orm: Orm;
  flags: FeatureFlagStore;
  bus: InProcessEventBus;
  dispatcher: EventDispatcher;
  notifier: Notifier;
  /** The one job queue (pg-boss): processes that run jobs register their workers, then `start` it. */
  jobs: JobQueue;
  /** Present when SMTP_URL is set: one SMTP transport for the process. */
  emailSender: SmtpSender | undefined;
  webhooks: Webhooks;
  automations: Automations;
  views: Views;
}

export interface Runtime extends RuntimeServices {
  procedures: ProcedureRegistry;
  /** The doors run each organization's calls through it: no organization holds more than its share of the pool. */
  organizationShare: OrganizationShare;
  invocationDeps: InvocationDeps;
  tasks: readonly ScheduledTask[];
  close(): Promise<void>;
}

export interface CreateRuntimeOptions {
  /** Process name in the logs: api, webhook-worker, cron-runner. */
  name: string;
  poolSize?: number;
  /**
   * The most one statement may run (a startup parameter of every connection): the api passes
   * DATABASE_STATEMENT_TIMEOUT_MS, task and job processes DATABASE_TASK_STATEMENT_TIMEOUT_MS;
   * unset (scripts), PostgreSQL's own setting.
   */
  statementTimeoutMs?: number;
  logger?: Logger;
  webhooks?: WebhookOptions;
  /** This process turns the job queue's schedule slots into jobs (the cron-runner). */
  timekeeping?: boolean;
}

const DEFAULT_POOL_SIZE = 10;

/** The composition root shared by the three apps: one ORM, one bus, one registry per process. */
export async function createRuntime(config: PlatformConfig, options: CreateRuntimeOptions): Promise<Runtime> {
  if (!config.databaseUrl) {
    throw new ConfigError('DATABASE_URL is not set (npm start provides an embedded PostgreSQL)');
  }
  const logger = options.logger ?? createLogger({ name: options.name, level: config.logLevel });
  const secretResolver =
    options.webhooks?.secretResolver ?? (config.webhookSecretResolverModule ? await loadSecretResolver(config.webhookSecretResolverModule) : undefined);
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  // LISTEN needs a session of its own: PostgreSQL itself, never a transaction pooler.
  const sessionUrl = directDatabaseUrl(config) as string;
  const orm = await createOrm({
    databaseUrl: config.databaseUrl,
    pooler: config.databasePooler,
    directUrl: sessionUrl,
    modules: ALL_MODULES,
    poolSize,
    statementTimeoutMs: options.statementTimeoutMs,
    // Index builds and advisory-lock waits run on a session of their own, with a task's limit.
    sessionStatementTimeoutMs: options.statementTimeoutMs === undefined ? undefined : config.taskStatementTimeoutMs,
    logger,
  });
  const organizationShare = new OrganizationShare({
    maxPerOrganization: Math.min(poolSize, config.organizationMaxConnections ?? Math.max(1, Math.floor(poolSize / 2))),
    queueTimeoutMs: config.organizationQueueTimeoutMs,
  });
  const flags = new FeatureFlagStore(orm, config.featureFlagDefaults);
  const bus = new InProcessEventBus(logger);
  const emailSender = config.smtpUrl ? createSmtpSender({ smtpUrl: config.smtpUrl, from: config.smtpFrom }) : undefined;
  const jobs = createJobQueue({
    orm,
    listenUrl: sessionUrl,
    logger,
    timekeeping: options.timekeeping ?? false,
    maintenanceIntervalSeconds: config.jobMaintenanceIntervalSeconds,
  });
  const notifier = createNotifier({ platformAdminEmails: config.platformAdminEmails, emailJobs: emailSender ? jobs : undefined });
  const webhooks = createWebhooks(config, orm, jobs, notifier, { ...options.webhooks, secretResolver });
  // Automation runs call procedures of the registry that holds the automations' own: they find it when a run needs it.
  const automations = createAutomations({
    procedures: () => procedures,
    invocation: () => invocationDeps,
    jobs,
    rowAccessRoles: recordRowAccessRoles,
  });
  // Boards and calendars call data-models' procedures as their caller, through the same registry.
  const views = createViews({ procedures: () => procedures, invocation: () => invocationDeps, notifier });
  const dispatcher = createEventDispatcher(bus, [webhooks.outbox, automations.outbox], [views.deriver]);
  // Until it listens, the outboxes look their routes up on every event; it keeps them in memory after.
  const routeChanges = await listenForRouteChanges({
    databaseUrl: sessionUrl,
    logger,
    caches: [webhooks.outbox.routes, automations.outbox.routes, views.routes] as ReadonlyArray<RouteCache<unknown>>,
  }).catch(async (error: unknown) => {
    await orm.close();
    throw error;
  });
  const invocationDeps: InvocationDeps = { dispatcher, logger, flags };
  const services: RuntimeServices = { config, logger, orm, flags, bus, dispatcher, jobs, notifier, emailSender, webhooks, automations, views };
  const procedures = new ProcedureRegistry(allProcedures(services));
  return {
    ...services,
    procedures,
    organizationShare,
    invocationDeps,
    tasks: scheduledTasks(),
    async close() {
      // Running jobs finish (or are failed for a retry) before what they use goes away.
      await jobs.stop();
      await bus.idle();
      await routeChanges.close();
      await webhooks.close();
      emailSender?.close();
      await orm.close();
    },
  };
}
