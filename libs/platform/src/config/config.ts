import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isKnownFeatureFlag } from '../feature-flags/known-flags';

/**
 * Process configuration, read once from the environment at start-up.
 * Every problem is reported as one ConfigError line so an operator sees exactly what to fix.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type NodeEnv = 'development' | 'production' | 'test';

export type DatabasePooler = 'none' | 'transaction';

export interface PlatformConfig {
  /** `production` unless NODE_ENV says development or test outright (parseNodeEnv). */
  nodeEnv: NodeEnv;
  /** Unset means: start (or reuse) the embedded PostgreSQL under `.data/`. */
  databaseUrl: string | undefined;
  /**
   * DATABASE_POOLER: `transaction` when DATABASE_URL leads to a transaction pooler (PgBouncer in
   * transaction mode): no named statements, no session state, the statement limit set in each
   * transaction. `none` (default): DATABASE_URL is PostgreSQL itself.
   */
  databasePooler: DatabasePooler;
  /**
   * DATABASE_DIRECT_URL: PostgreSQL itself, for what needs a session of its own (LISTEN,
   * migrations, index builds under advisory locks). Required with a pooler; else DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  port: number;
  /** API_WORKERS: api processes sharing the port (node:cluster), 1-64; 1 runs no cluster at all. */
  apiWorkers: number;
  /** Address the api listens on; undefined = every interface (production default). */
  host: string | undefined;
  /** DATABASE_STATEMENT_TIMEOUT_MS: the most one statement of a request may run (the api's connections). */
  statementTimeoutMs: number;
  /** DATABASE_TASK_STATEMENT_TIMEOUT_MS: the same for scheduled tasks and jobs (cron-runner, webhook-worker). */
  taskStatementTimeoutMs: number;
  /** ORGANIZATION_MAX_CONNECTIONS: calls one organization may run at once per api process; unset = half the pool. */
  organizationMaxConnections: number | undefined;
  /** ORGANIZATION_QUEUE_TIMEOUT_MS: how long a call over that number waits for a place before a 503. */
  organizationQueueTimeoutMs: number;
  /** Port of the embedded PostgreSQL that `npm start` runs when DATABASE_URL is unset. */
  embeddedPostgresPort: number;
  authJwtSecret: string | undefined;
  authJwksUrl: string | undefined;
  /** Required `iss` and `aud` of session tokens, when set (a JWKS serves every client of the provider). */
  authJwtIssuer: string | undefined;
  authJwtAudience: string | undefined;
  platformAdminEmails: ReadonlySet<string>;
  cronSecret: string | undefined;
  /**
   * CRON_SCHEDULE_<TASK> overrides as given, keyed by the variable's full name; the runtime,
   * which knows the tasks, checks the names and expressions (resolveTaskSchedules).
   */
  cronScheduleOverrides: Readonly<Record<string, string>>;
  /**
   * CRON_TASK_EXPIRY_SECONDS: a scheduled task's run still going after this long is presumed dead
   * (its cron-runner killed): its slot is run again by a cron-runner. Longer than any run takes.
   */
  taskExpirySeconds: number;
  /** JOB_MAINTENANCE_INTERVAL_SECONDS: how often the job queue looks for jobs whose process died (one process per interval). */
  jobMaintenanceIntervalSeconds: number;
  /** Signs list cursors; one per deployment, the same in every process that serves lists. */
  cursorSecret: string;
  publicApiRatePerSecond: number;
  publicApiBurst: number;
  /** `postgres` (default) shares each key's bucket across api processes; `memory` is for a single process. */
  publicApiRateLimitStore: 'postgres' | 'memory';
  /** Days the webhook delivery log keeps settled deliveries and their attempts (WEBHOOK_RETENTION_DAYS). */
  webhookRetentionDays: number;
  webhookRetryBaseSeconds: number;
  /** How long one delivery attempt may take (10 s, the contract's; tests set less). */
  webhookTimeoutSeconds: number;
  /** Attempts a worker has in flight to one endpoint at most. */
  webhookEndpointConcurrency: number;
  /** Which webhook targets are allowed: `development` (private hosts, plain http to them) outside production. */
  webhookAddressPolicy: 'production' | 'development';
  webhookSecretEncryptionKey: Buffer | undefined;
  /** A module of the operator's exporting `resolveWebhookSecret` (a WebhookSecretResolver's resolve); replaces the built-in resolver. */
  webhookSecretResolverModule: string | undefined;
  /** Ranges webhooks may reach even when private (WEBHOOK_ALLOWED_CIDRS); each one parses as a CIDR. */
  webhookAllowedCidrs: readonly string[];
  /** PUBLIC_API_CORS_ORIGINS: browser origins (scheme://host[:port]) that may call /api/v1; none by default. */
  publicApiCorsOrigins: readonly string[];
  /** Boot defaults of feature flags (`FEATURE_FLAGS=public-api.enabled=true,other=false`). */
  featureFlagDefaults: Readonly<Record<string, boolean>>;
  logLevel: string;
  /** Days between asking for an account's deletion and its deletion (ACCOUNT_DELETION_GRACE_DAYS); 0 = at the next task run. */
  accountDeletionGraceDays: number;
  /** SMTP_URL (`smtp://` or `smtps://`): notifications are also emailed when set. Holds a password: never log it. */
  smtpUrl: string | undefined;
  /** SMTP_FROM: the sender of notification emails. */
  smtpFrom: string;
  /**
   * TRUST_PROXY: the api is reached through one reverse proxy, whose X-Forwarded-For entry (the
   * last) is the client address (per-address limits of the automation hooks count by it).
   */
  trustProxy: boolean;
  /**
   * SHUTDOWN_DRAIN_SECONDS: after SIGTERM the api answers not ready but goes on serving this long,
   * so the load balancer's health checks take it out before it stops accepting (api only).
   */
  shutdownDrainSeconds: number;
  /**
   * SHUTDOWN_TIMEOUT_SECONDS: how long work under way (requests, deliveries, tasks) may go on once
   * a process stops taking new work; what is still running then is cut off (and retried elsewhere).
   */
  shutdownTimeoutSeconds: number;
}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function positiveNumber(env: Env, name: string, fallback: number, { integer }: { integer: boolean }): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ConfigError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return value;
}

function tcpPort(env: Env, name: string, fallback: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 65_535) {
    throw new ConfigError(`${name} must be an integer from 1 to 65535, got "${raw}"`);
  }
  return value;
}

const HOST_NAME = /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** A development api prints a full-access key, so it listens on loopback unless told otherwise. */
function parseHost(raw: string | undefined, nodeEnv: NodeEnv): string | undefined {
  if (raw === undefined) return nodeEnv === 'production' ? undefined : '127.0.0.1';
  if (!isIP(raw) && !HOST_NAME.test(raw)) {
    throw new ConfigError(`HOST must be an IP address or a host name (e.g. 127.0.0.1 or 0.0.0.0), got "${raw}"`);
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(raw: string | undefined, nodeEnv: NodeEnv): string {
  if (raw === undefined) return nodeEnv === 'test' ? 'silent' : 'info';
  if (!LOG_LEVELS.includes(raw)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${raw}"`);
  }
  return raw;
}

/**
 * The one rule for development features (the development sign-in, demo data, private webhook
 * targets, a made-up CURSOR_SECRET): NODE_ENV must say development or test outright. A deployment
 * that forgot NODE_ENV is production.
 */
function parseNodeEnv(raw: string | undefined): NodeEnv {
  if (raw === undefined) return 'production';
  if (raw === 'development' || raw === 'production' || raw === 'test') return raw;
  throw new ConfigError(`NODE_ENV must be one of development, production, test; got "${raw}"`);
}

function parseDatabaseUrl(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL (expected postgres://user:password@host:port/database)`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`${name} must use the postgres:// scheme, got "${url.protocol}"`);
  }
  return raw;
}

interface DatabaseSettings {
  databaseUrl: string | undefined;
  databasePooler: DatabasePooler;
  databaseDirectUrl: string | undefined;
}

/** A pooler needs both URLs: what needs a session must not go through it. */
function databaseSettings(env: Env): DatabaseSettings {
  const databaseUrl = parseDatabaseUrl(optional(env, 'DATABASE_URL'), 'DATABASE_URL');
  const databaseDirectUrl = parseDatabaseUrl(optional(env, 'DATABASE_DIRECT_URL'), 'DATABASE_DIRECT_URL');
  const pooler = optional(env, 'DATABASE_POOLER') ?? 'none';
  if (pooler !== 'none' && pooler !== 'transaction') {
    throw new ConfigError(`DATABASE_POOLER must be none or transaction, got "${pooler}"`);
  }
  if (pooler === 'transaction' && (!databaseUrl || !databaseDirectUrl)) {
    throw new ConfigError(
      'DATABASE_POOLER=transaction needs DATABASE_URL (the pooler) and DATABASE_DIRECT_URL (PostgreSQL itself, for LISTEN, migrations and index builds)',
    );
  }
  if (databaseDirectUrl && !databaseUrl) throw new ConfigError('DATABASE_DIRECT_URL is set but DATABASE_URL is not: set both, or neither');
  return { databaseUrl, databasePooler: pooler, databaseDirectUrl };
}

/** Where a session of its own goes (LISTEN, migrations, index builds): PostgreSQL itself, never the pooler. */
export function directDatabaseUrl(config: Pick<PlatformConfig, 'databaseUrl' | 'databaseDirectUrl'>): string | undefined {
  return config.databaseDirectUrl ?? config.databaseUrl;
}

const CRON_SCHEDULE_PREFIX = 'CRON_SCHEDULE_';

function cronScheduleOverrides(env: Env): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const name of Object.keys(env).filter((key) => key.startsWith(CRON_SCHEDULE_PREFIX)).sort()) {
    // Empty counts as unset, as for every other variable.
    const value = optional(env, name);
    if (value !== undefined) overrides[name] = value;
  }
  return overrides;
}

function parseFeatureFlags(raw: string | undefined): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  if (raw === undefined) return flags;
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [key, value = 'true'] = entry.split('=').map((part) => part.trim());
    if (!isKnownFeatureFlag(key)) {
      throw new ConfigError(`FEATURE_FLAGS names an unknown flag "${key}" (known: public-api.enabled, public-api.service-accounts)`);
    }
    if (value !== 'true' && value !== 'false') {
      throw new ConfigError(`FEATURE_FLAGS value for "${key}" must be true or false, got "${value}"`);
    }
    flags[key] = value === 'true';
  }
  return flags;
}

/** Each entry an origin exactly as a browser sends it: lower-case scheme and host, a port only when not the default. */
function parseCorsOrigins(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  return entries.map((entry) => {
    let origin: string;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = 'null';
    }
    if (origin === 'null' || origin !== entry || !/^https?:$/.test(new URL(entry).protocol)) {
      throw new ConfigError(`PUBLIC_API_CORS_ORIGINS entries must be origins like https://app.example.com (no path, no trailing slash), got "${entry}"`);
    }
    return origin;
  });
}

function parseUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw;
}

function parseEncryptionKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

/** The contract's 10 seconds is the most an attempt may take; less is allowed (tests, impatient operators). */
function webhookTimeout(env: Env): number {
  const seconds = positiveNumber(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, { integer: false });
  if (seconds > 10) throw new ConfigError(`WEBHOOK_TIMEOUT_SECONDS is at most 10 (the delivery timeout), got "${seconds}"`);
  return seconds;
}

/** The same ipaddr.js parser that the webhook address policy applies to these ranges. */
function parseAllowedCidrs(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const cidrs = raw.split(',').map((part) => part.trim()).filter(Boolean);
  for (const cidr of cidrs) {
    try {
      ipaddr.parseCIDR(cidr);
    } catch {
      throw new ConfigError(`WEBHOOK_ALLOWED_CIDRS must be comma-separated CIDR ranges (e.g. 10.8.0.0/16,fd00:1::/64); "${cidr}" is not one`);
    }
  }
  return cidrs;
}

function apiWorkers(env: Env): number {
  const value = positiveNumber(env, 'API_WORKERS', 1, { integer: true });
  if (value > 64) throw new ConfigError(`API_WORKERS is at most 64, got "${value}"`);
  return value;
}

/** A whole number of milliseconds within [1, max]: what PostgreSQL's statement_timeout and a timer accept. */
function milliseconds(env: Env, name: string, fallback: number, max: number): number {
  const value = positiveNumber(env, name, fallback, { integer: true });
  if (value > max) throw new ConfigError(`${name} is at most ${max} (milliseconds), got "${value}"`);
  return value;
}

function boundedInteger(env: Env, name: string, fallback: number, max: number): number {
  const value = positiveNumber(env, name, fallback, { integer: true });
  if (value > max) throw new ConfigError(`${name} is at most ${max}, got "${value}"`);
  return value;
}

function webhookEndpointConcurrency(env: Env): number {
  const value = positiveNumber(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 16, { integer: true });
  if (value > 100) throw new ConfigError(`WEBHOOK_ENDPOINT_CONCURRENCY is at most 100, got "${value}"`);
  return value;
}

const CURSOR_SECRET_MIN_LENGTH = 32;

/**
 * Required in production: a secret in the source would let anyone sign cursors. Elsewhere an unset
 * one is made up per process (`npm start` keeps one in .data/ so cursors survive a restart).
 */
function parseCursorSecret(raw: string | undefined, nodeEnv: NodeEnv): string {
  if (raw === undefined) {
    if (nodeEnv === 'production') {
      throw new ConfigError(`CURSOR_SECRET is required in production: set it to ${CURSOR_SECRET_MIN_LENGTH}+ random characters, the same in every process`);
    }
    return randomBytes(32).toString('base64url');
  }
  if (raw.length < CURSOR_SECRET_MIN_LENGTH) throw new ConfigError(`CURSOR_SECRET must be at least ${CURSOR_SECRET_MIN_LENGTH} characters`);
  return raw;
}

function parseBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function parseRateLimitStore(raw: string | undefined): 'postgres' | 'memory' {
  if (raw === undefined || raw === 'postgres' || raw === 'memory') return raw ?? 'postgres';
  throw new ConfigError(`PUBLIC_API_RATE_LIMIT_STORE must be postgres or memory, got "${raw}"`);
}

/** A whole number of seconds within [min, max]. */
function seconds(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number of seconds from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * A load balancer needs a few failed checks to take a host out: production waits that long by
 * default. Nothing balances a development or test api, so Ctrl-C there stops at once.
 */
function shutdownDrainSeconds(env: Env, nodeEnv: NodeEnv): number {
  return seconds(env, 'SHUTDOWN_DRAIN_SECONDS', nodeEnv === 'production' ? 10 : 0, 0, 300);
}

function parseGraceDays(env: Env): number {
  const raw = optional(env, 'ACCOUNT_DELETION_GRACE_DAYS');
  if (raw === undefined) return 30;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 365) {
    throw new ConfigError(`ACCOUNT_DELETION_GRACE_DAYS must be an integer from 0 to 365, got "${raw}"`);
  }
  return value;
}

/** The messages name the scheme and the host at most: the URL holds the SMTP password. */
function parseSmtpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SMTP_URL is not a valid URL (expected smtp://user:password@host:port or smtps://...)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`SMTP_URL must use the smtp:// or smtps:// scheme, got "${url.protocol}"`);
  }
  if (!url.hostname) throw new ConfigError('SMTP_URL names no host (expected smtp://user:password@host:port)');
  return raw;
}

const EMAIL_SENDER = /^[^\s@<>]+@[^\s@<>]+$|^[^\r\n<>]*<[^\s@<>]+@[^\s@<>]+>$/;

function parseSmtpFrom(raw: string | undefined): string {
  if (raw === undefined) return 'no-reply@localhost';
  if (!EMAIL_SENDER.test(raw)) throw new ConfigError(`SMTP_FROM must be an address (no-reply@example.com or "Name <no-reply@example.com>"), got "${raw}"`);
  return raw;
}

/** Where a person on this machine reaches the api: `http://127.0.0.1:3000`, `http://localhost:3000` for every interface. */
export function apiAddress({ host, port }: Pick<PlatformConfig, 'host' | 'port'>): string {
  const shown = !host || host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

export interface LoadConfigOptions {
  /** The api process authenticates sessions and must have a JWT secret or a JWKS URL. */
  requireSessionAuth?: boolean;
}

export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): PlatformConfig {
  const nodeEnv = parseNodeEnv(optional(env, 'NODE_ENV'));
  const authJwtSecret = optional(env, 'AUTH_JWT_SECRET');
  const authJwksUrl = parseUrl('AUTH_JWKS_URL', optional(env, 'AUTH_JWKS_URL'));
  if (options.requireSessionAuth && !authJwtSecret && !authJwksUrl) {
    throw new ConfigError('Set AUTH_JWT_SECRET (HS256) or AUTH_JWKS_URL to verify session tokens');
  }
  if (authJwtSecret && authJwtSecret.length < 32) {
    throw new ConfigError('AUTH_JWT_SECRET must be at least 32 characters');
  }
  const cronSecret = optional(env, 'CRON_SECRET');
  if (cronSecret && cronSecret.length < 16) {
    throw new ConfigError('CRON_SECRET must be at least 16 characters');
  }
  const platformAdminEmails = new Set(
    (optional(env, 'PLATFORM_ADMIN_EMAILS') ?? '')
      .split(',')
      .map((email) => email.trim().toLowerCase())
      .filter(Boolean),
  );
  return {
    nodeEnv,
    ...databaseSettings(env),
    port: tcpPort(env, 'PORT', 3000),
    apiWorkers: apiWorkers(env),
    host: parseHost(optional(env, 'HOST'), nodeEnv),
    embeddedPostgresPort: tcpPort(env, 'EMBEDDED_POSTGRES_PORT', 54329),
    statementTimeoutMs: milliseconds(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000, 2_147_483_647),
    taskStatementTimeoutMs: milliseconds(env, 'DATABASE_TASK_STATEMENT_TIMEOUT_MS', 600_000, 2_147_483_647),
    organizationMaxConnections: optional(env, 'ORGANIZATION_MAX_CONNECTIONS') === undefined ? undefined : positiveNumber(env, 'ORGANIZATION_MAX_CONNECTIONS', 1, { integer: true }),
    organizationQueueTimeoutMs: milliseconds(env, 'ORGANIZATION_QUEUE_TIMEOUT_MS', 2_000, 60_000),
    authJwtSecret,
    authJwksUrl,
    authJwtIssuer: optional(env, 'AUTH_JWT_ISSUER'),
    authJwtAudience: optional(env, 'AUTH_JWT_AUDIENCE'),
    platformAdminEmails,
    cronSecret,
    cronScheduleOverrides: cronScheduleOverrides(env),
    taskExpirySeconds: boundedInteger(env, 'CRON_TASK_EXPIRY_SECONDS', 900, 43_200),
    jobMaintenanceIntervalSeconds: boundedInteger(env, 'JOB_MAINTENANCE_INTERVAL_SECONDS', 10, 3_600),
    cursorSecret: parseCursorSecret(optional(env, 'CURSOR_SECRET'), nodeEnv),
    publicApiRatePerSecond: positiveNumber(env, 'PUBLIC_API_RATE_PER_SECOND', 5, { integer: false }),
    publicApiBurst: positiveNumber(env, 'PUBLIC_API_BURST', 20, { integer: true }),
    publicApiRateLimitStore: parseRateLimitStore(optional(env, 'PUBLIC_API_RATE_LIMIT_STORE')),
    webhookRetentionDays: positiveNumber(env, 'WEBHOOK_RETENTION_DAYS', 30, { integer: true }),
    webhookRetryBaseSeconds: positiveNumber(env, 'WEBHOOK_RETRY_BASE_SECONDS', 30, { integer: false }),
    webhookTimeoutSeconds: webhookTimeout(env),
    webhookEndpointConcurrency: webhookEndpointConcurrency(env),
    webhookAddressPolicy: nodeEnv === 'production' ? 'production' : 'development',
    webhookSecretEncryptionKey: parseEncryptionKey(optional(env, 'WEBHOOK_SECRET_ENCRYPTION_KEY')),
    webhookSecretResolverModule: optional(env, 'WEBHOOK_SECRET_RESOLVER'),
    webhookAllowedCidrs: parseAllowedCidrs(optional(env, 'WEBHOOK_ALLOWED_CIDRS')),
    publicApiCorsOrigins: parseCorsOrigins(optional(env, 'PUBLIC_API_CORS_ORIGINS')),
    featureFlagDefaults: parseFeatureFlags(optional(env, 'FEATURE_FLAGS')),
    logLevel: parseLogLevel(optional(env, 'LOG_LEVEL'), nodeEnv),
    trustProxy: parseBoolean(env, 'TRUST_PROXY', false),
    accountDeletionGraceDays: parseGraceDays(env),
    smtpUrl: parseSmtpUrl(optional(env, 'SMTP_URL')),
    smtpFrom: parseSmtpFrom(optional(env, 'SMTP_FROM')),
    shutdownDrainSeconds: shutdownDrainSeconds(env, nodeEnv),
    shutdownTimeoutSeconds: seconds(env, 'SHUTDOWN_TIMEOUT_SECONDS', 10, 1, 300),
  };
}
