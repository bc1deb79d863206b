import {
  DeliveryWorker,
  WEBHOOK_DELIVERY_PERMISSION,
  builtInSecretResolver,
  createAddressPolicy,
  createDeliveryLogProcedures,
  createEndpointProcedures,
  pruneWebhookDeliveries,
  createRecordAttemptsProcedure,
  createWebhookOutbox,
  webhookDeliveryStatements,
  createWebhookSender,
  DELIVERY_JOB_EXPIRY_SECONDS,
  DELIVERY_LEASE_SECONDS,
  listEventTypes,
  type DeliveryJobs,
  type RecordedAttempts,
  type WebhookOutbox,
  type HostLookup,
  type WebhookSecretResolver,
  type WebhookSender,
} from '@mrp/events';
import { assertMayActAsMember, liveMemberAccessSql, memberOrganizationIds } from '@mrp/authz';
import { recordRowAccessRoles } from '@mrp/data-models';
import type { Notifier } from '@mrp/notifications';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigError,
  invokeProcedure,
  newId,
  systemPrincipal,
  type AnyProcedure,
  type InvocationDeps,
  type JobQueue,
  type Orm,
  type PlatformConfig,
} from '@mrp/platform';

const TYPESCRIPT_FILE = /\.[cm]?ts$/;

/**
 * The module at `target`. A resolver written in TypeScript, which plain node refuses (the apps run
 * as JavaScript bundles), is compiled on load by tsx; where TypeScript already loads (under a
 * test runner's transform), it loads as any module.
 */
async function importModule(target: string, isTypeScript: boolean): Promise<{ resolveWebhookSecret?: unknown }> {
  try {
    return (await import(target)) as { resolveWebhookSecret?: unknown };
  } catch (error) {
    if (!isTypeScript || (error as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  const { tsImport } = await import('tsx/esm/api');
  return (await tsImport(target, target)) as { resolveWebhookSecret?: unknown };
}

/**
 * The operator's resolver named by WEBHOOK_SECRET_RESOLVER: a module (path or package, JavaScript
 * or TypeScript) exporting `resolveWebhookSecret(secret)`, loaded once at start; a module without
 * it stops the start.
 */
export async function loadSecretResolver(specifier: string): Promise<WebhookSecretResolver> {
  const isPath = specifier.startsWith('.') || isAbsolute(specifier);
  const target = isPath ? pathToFileURL(resolvePath(specifier)).href : specifier;
  let loaded: { resolveWebhookSecret?: unknown };
  try {
    loaded = await importModule(target, isPath && TYPESCRIPT_FILE.test(specifier));
  } catch (error) {
    throw new ConfigError(`WEBHOOK_SECRET_RESOLVER "${specifier}" cannot be loaded: ${(error as Error).message.split('\n')[0]}`);
  }
  const resolve = loaded.resolveWebhookSecret;
  if (typeof resolve !== 'function') throw new ConfigError(`WEBHOOK_SECRET_RESOLVER "${specifier}" does not export a resolveWebhookSecret function`);
  return { resolve: (secret) => Promise.resolve(resolve(secret)) as Promise<string | null> };
}

/** Names the product to receivers. */
export const WEBHOOK_USER_AGENT = 'ModelRecords-Webhooks/1.0';

export interface WebhookOptions {
  /** An operator's own secret store; the built-in one decrypts with WEBHOOK_SECRET_ENCRYPTION_KEY. */
  secretResolver?: WebhookSecretResolver;
  /** DNS for URL checks (tests stand in a resolver they control). */
  lookup?: HostLookup;
}

export interface Webhooks {
  outbox: WebhookOutbox;
  procedures: AnyProcedure[];
  /** A delivery worker for this process (the webhook-worker runs one; a sweep drains one). */
  createWorker(
    invocationDeps: InvocationDeps,
    /**
     * `sender` replaces the process's HTTP sender (the benchmark's no-op baseline); `leaseSeconds` the
     * heartbeat's lease and `jobs` the job queue it takes from (tests: a fetch timed against a commit).
     */
    options?: {
      batchSize?: number;
      perEndpointConcurrency?: number;
      maxInFlight?: number;
      pollIntervalMs?: number;
      leaseSeconds?: number;
      sender?: WebhookSender;
      jobs?: DeliveryJobs;
    },
  ): DeliveryWorker;
  close(): Promise<void>;
}

/** At most one wake-up of the automation runners per this many milliseconds from one process (decision 89). */
export const WAKE_INTERVAL_MS = 10;

/** The outbox decides in its insert whether an endpoint's principal may read a record, by authz's rule. */
const DELIVERY_STATEMENTS = webhookDeliveryStatements(liveMemberAccessSql);

/** The whole webhook capability of one process, from its configuration. */
export function createWebhooks(config: PlatformConfig, orm: Orm, jobs: JobQueue, notifier: Notifier, options: WebhookOptions = {}): Webhooks {
  const policy = createAddressPolicy({
    mode: config.webhookAddressPolicy,
    allowedCidrs: config.webhookAllowedCidrs,
  });
  const jobExpirySeconds = DELIVERY_JOB_EXPIRY_SECONDS;
  const recordAttempts = createRecordAttemptsProcedure({
    retryBaseSeconds: config.webhookRetryBaseSeconds,
    jobs,
    jobExpirySeconds,
    notifyOperators: (scope, message) => notifier.notifyOperators(scope, message),
  });
  // One connection pool per process, made when a worker first needs it.
  let sender: WebhookSender | undefined;
  const sharedSender = () =>
    (sender ??= createWebhookSender({ policy, timeoutMs: config.webhookTimeoutSeconds * 1000, lookup: options.lookup, userAgent: WEBHOOK_USER_AGENT }));
  const secretResolver = options.secretResolver ?? builtInSecretResolver(config.webhookSecretEncryptionKey);
  const outbox = createWebhookOutbox(memberOrganizationIds, jobs, DELIVERY_STATEMENTS, jobExpirySeconds);
  return {
    outbox,
    procedures: [
      ...createEndpointProcedures({
        addressPolicy: policy,
        secretEncryptionKey: config.webhookSecretEncryptionKey,
        lookup: options.lookup,
        routesChanged: (organizationId) => outbox.routes.forget(organizationId),
        assertMayActAs: (ctx, organizationId, principalId, { choosing, action }) =>
          assertMayActAsMember(ctx.em, recordRowAccessRoles, ctx.principal, organizationId, principalId, { field: 'principalId', action, choosing }),
      }),
      listEventTypes,
      recordAttempts,
      ...createDeliveryLogProcedures({ retentionDays: config.webhookRetentionDays, jobs, jobExpirySeconds }),
      pruneWebhookDeliveries,
    ],
    createWorker(invocationDeps, { sender: givenSender, jobs: givenJobs, ...workerOptions } = {}) {
      const principal = systemPrincipal('webhook-delivery', { permissions: [WEBHOOK_DELIVERY_PERMISSION] });
      return new DeliveryWorker(
        {
          jobs: givenJobs ?? jobs,
          newContext: () => orm.em.fork(),
          sender: givenSender ?? sharedSender(),
          secretResolver,
          logger: invocationDeps.logger,
          async recordAttempts(attempts, jobs): Promise<RecordedAttempts> {
            return invokeProcedure(recordAttempts, { attempts, jobs }, { em: orm.em.fork(), principal, correlationId: newId() }, invocationDeps);
          },
        },
        {
          perEndpointConcurrency: config.webhookEndpointConcurrency,
          leaseSeconds: DELIVERY_LEASE_SECONDS,
          ...workerOptions,
        },
      );
    },
    async close() {
      await sender?.close();
    },
  };
}
