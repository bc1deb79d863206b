export { loadConfig, apiAddress, directDatabaseUrl, ConfigError, type PlatformConfig, type NodeEnv, type DatabasePooler } from './config/config';
export {
  DomainError,
  ERROR_CODES,
  badRequest,
  conflict,
  forbidden,
  preconditionFailed,
  isDomainError,
  notFound,
  unauthorized,
  validationFailed,
  type ErrorCode,
  type ErrorDetail,
} from './errors/domain-error';
export { createLogger, type Logger } from './logging/logger';
export { newId, isUuidString } from './ids/ids';
export { createOrm, migrateToLatest, ormOptions, type Orm, type CreateOrmOptions } from './database/orm';
export { freePort } from './net/free-port';
export { processAlive } from './processes/process-alive';
export { UnsafeLocalPathError, assertPrivateFolder, ensurePrivateFolder, readPrivateFile, writePrivateFile } from './files/private-files';
export { collectMigrations, orderModules, type PlatformModule } from './database/migration-order';
export {
  defineProcedure,
  ProcedureRegistry,
  type AnyProcedure,
  type InputPermission,
  type Procedure,
  type ProcedureContext,
  type ProcedureDefinition,
  type ProcedureScope,
} from './procedures/procedure';
export {
  assertProcedureAvailable,
  invokeProcedure,
  preflightProcedure,
  validateProcedureInput,
  type Invocation,
  type InvocationDeps,
  type OutcomeRecorder,
} from './procedures/invoke';
export { answerVersionOf, withAnswerVersion, type AnswerVersion } from './procedures/answer-version';
export {
  IDEMPOTENCY_RETENTION_HOURS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  claimIdempotencyKey,
  findStoredAnswer,
  lostToKeptAnswer,
  storeAnswer,
  storeAnswerAtCommit,
  type IdempotencyScope,
  type KeyClaim,
  type StoredAnswer,
} from './idempotency/idempotent-requests';
export { PRUNE_IDEMPOTENT_REQUESTS, pruneIdempotentRequests } from './idempotency/prune-idempotent-requests';
export { invokeWithin, procedureCall, type InvokeWithinOptions, type ProcedureCall } from './procedures/invoke-within';
export type { ProcedureSignature, ProcedureSignatures, SignatureDrift, SignaturesOf } from './procedures/procedure-signatures';
export { compileSchema, schemaErrorDetails } from './procedures/schema';
// The one rule for text PostgreSQL can store, for libs that take strings from elsewhere than an input schema.
export { unstorableText } from '@mrp/field-validation';
export type { Principal, PrincipalKind, Credential } from './procedures/principal';
export { systemPrincipal, type SystemPrincipalOptions } from './procedures/system-principal';
export {
  noopEventDispatcher,
  type EventCause,
  type EventDispatcher,
  type EventEnvelope,
  type EventMetadata,
  type PendingEvent,
} from './events/event-envelope';
export { FeatureFlagStore, type FeatureFlagState } from './feature-flags/feature-flag-store';
export { listenOnChannel, type ChannelListener, type ChannelListenerOptions } from './database/channel-listener';
export {
  JOB_QUEUE_SCHEMA,
  JOBS_DUE_CHANNEL,
  JobQueueMigration,
  createJobQueue,
  type EnqueueOptions,
  type Job,
  type JobData,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
  type QueueDefinition,
  type QueuedJob,
  type ScheduleOptions,
  type WorkOptions,
} from './queue/job-queue';
export {
  KNOWN_FEATURE_FLAGS,
  FEATURE_FLAG_KEYS,
  isKnownFeatureFlag,
  type FeatureFlagKey,
} from './feature-flags/known-flags';
export { platformModule } from './platform-module';
export { sqlTextArray, toIso } from './database/sql-values';
export { preparedStatement, type IntendedPlan, type PreparedStatement, type PreparedValue } from './database/driver/prepared-statement';
export { executePrepared, executePreparedAtCommit, executeStreamed } from './database/driver/execute-prepared';
export type { RowHandler } from './database/driver/statement';
export { withSession } from './database/session';
export type { SessionQuery } from './database/driver/direct-pg-driver';
export { runInTransaction } from './database/transaction';
export { withReadSnapshot, type ReadSnapshotOptions } from './database/read-snapshot';
export { cancelStatements, forgetCancelledStatements } from './database/cancel-statements';
export { databaseFailure, DATABASE_RETRY_AFTER_SECONDS } from './database/database-failures';
export { OrganizationShare, type OrganizationShareOptions } from './database/organization-share';
