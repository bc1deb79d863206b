import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { DirectPgDriver, SESSION_STATEMENT_TIMEOUT, TRANSACTION_POOLER, type TransactionPoolerSettings } from './driver/direct-pg-driver';
import type { DatabasePooler } from '../config/config';
import { collectMigrations, type PlatformModule } from './migration-order';
import { createLogger, type Logger } from '../logging/logger';
import { knexLog } from './pool-log';

export type Orm = MikroORM;

export interface CreateOrmOptions {
  databaseUrl: string;
  modules: readonly PlatformModule[];
  poolSize?: number;
  /**
   * The most one statement may run, in milliseconds, sent as the connections' startup parameter
   * (no round trip of its own): each process is given the limit of the work it does.
   * Unset: PostgreSQL's own setting (none, by default).
   */
  statementTimeoutMs?: number;
  /**
   * The limit of work on a session of its own (`withSession`: index builds, advisory locks), set
   * for that session only and reset before the connection is pooled again. Unset: `statementTimeoutMs`.
   */
  sessionStatementTimeoutMs?: number;
  /** How long a statement waits for a pooled connection before it fails (knex's default: 60 s). */
  acquireTimeoutMs?: number;
  /**
   * `transaction`: databaseUrl leads to a transaction pooler (PgBouncer in transaction mode): no
   * named statements, the statement limit set in each transaction, sessions on `directUrl`.
   */
  pooler?: DatabasePooler;
  /** PostgreSQL itself, for what needs a session (`withSession`); required with a pooler. */
  directUrl?: string;
  debug?: boolean;
  /** Where the pool's own messages go (as the `database` component); a JSON logger of warnings when omitted. */
  logger?: Logger;
}

export function ormOptions({
  databaseUrl,
  modules,
  poolSize = 10,
  statementTimeoutMs,
  sessionStatementTimeoutMs,
  acquireTimeoutMs,
  pooler = 'none',
  directUrl,
  debug = false,
  logger,
}: CreateOrmOptions): Options {
  if (pooler === 'transaction' && !directUrl) throw new Error('A transaction pooler needs the direct URL of PostgreSQL for sessions');
  // A pooler forwards no statement_timeout startup parameter: the driver sets it in each transaction.
  const transactionPooler: TransactionPoolerSettings | undefined = pooler === 'transaction' ? { statementTimeoutMs, directUrl: directUrl as string } : undefined;
  const startupTimeoutMs = transactionPooler ? undefined : statementTimeoutMs;
  return {
    // Raw SQL and transactions straight on `pg` (see DirectPgConnection); everything else is MikroORM's own.
    driver: DirectPgDriver,
    clientUrl: databaseUrl,
    entities: modules.flatMap((module) => module.entities),
    extensions: [Migrator],
    migrations: {
      migrationsList: collectMigrations(modules),
      tableName: 'schema_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    // Every request, job and task forks its own EntityManager; touching the global one is a bug.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug,
    pool: { min: 0, max: poolSize },
    driverOptions: {
      log: knexLog(logger ?? createLogger({ name: 'database', level: 'warn' })),
      ...(startupTimeoutMs === undefined ? {} : { connection: { statement_timeout: startupTimeoutMs } }),
      ...(transactionPooler ? { [TRANSACTION_POOLER]: transactionPooler } : {}),
      ...(acquireTimeoutMs === undefined ? {} : { acquireConnectionTimeout: acquireTimeoutMs }),
      ...(sessionStatementTimeoutMs === undefined ? {} : { [SESSION_STATEMENT_TIMEOUT]: sessionStatementTimeoutMs }),
    },
    discovery: { warnWhenNoEntities: false },
  };
}

export async function createOrm(options: CreateOrmOptions): Promise<Orm> {
  return MikroORM.init(ormOptions(options));
}

export async function migrateToLatest(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}
