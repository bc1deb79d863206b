import {
  AbstractSqlDriver,
  EventType,
  PostgreSqlConnection,
  PostgreSqlPlatform,
  type AnyEntity,
  type Configuration,
  type EntityData,
  type IsolationLevel,
  type Knex,
  type LogContext,
  type LoggingOptions,
  type QueryResult,
  type Transaction,
  type TransactionEventBroadcaster,
} from '@mikro-orm/postgresql';
import type { QueryResult as PgResult } from 'pg';
import { PinnedTransaction, TransactionCompleteError, withStatement, type KnexPgClient, type PooledConnection } from './pinned-transaction';
import { bindValues, type PreparedStatement, type PreparedValue } from './prepared-statement';

interface BeginOptions {
  isolationLevel?: IsolationLevel;
  readOnly?: boolean;
  ctx?: Knex.Transaction;
  eventBroadcaster?: TransactionEventBroadcaster;
  loggerContext?: LogContext;
}

type ExecuteResult = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

/**
 * MikroORM's PostgreSQL connection with its hot paths sent straight to `pg`:
 * - a SQL string (`em.execute`, and every query MikroORM's own query builder runs) is formatted
 *   exactly as MikroORM formats it and sent on the transaction's connection, or on a pooled one,
 *   skipping knex's per-query builder, runner, events and query ids (~0.4 ms a statement);
 * - a top-level transaction is a `PinnedTransaction`: BEGIN rides on the first statement, COMMIT
 *   is one round trip, and none of knex's per-transaction objects are built;
 * - `executePrepared` runs a statement PostgreSQL keeps parsed and planned per connection.
 * Knex query objects, savepoints and streams keep going through knex, on the same connection.
 */
export class DirectPgConnection extends PostgreSqlConnection {
  override async begin(options: BeginOptions = {}): Promise<Knex.Transaction> {
    // A savepoint inside an outer transaction (pinned or knex's): knex's own nesting does it.
    if (options.ctx) return super.begin(options);
    await options.eventBroadcaster?.dispatchEvent(EventType.beforeTransactionStart);
    const beginSql = this.platform.getBeginTransactionSQL(options);
    const pool = this.knexClient();
    const transaction = new PinnedTransaction(pool, await pool.acquireConnection(), beginSql.join(';'));
    try {
      if (this.logger.isEnabled('query', options.loggerContext)) for (const query of beginSql) this.logQuery(query, options.loggerContext);
      await options.eventBroadcaster?.dispatchEvent(EventType.afterTransactionStart, transaction);
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    return transaction as unknown as Knex.Transaction;
  }

  override async commit(ctx: Knex.Transaction, eventBroadcaster?: TransactionEventBroadcaster, loggerContext?: LogContext): Promise<void> {
    const transaction: unknown = ctx;
    if (!(transaction instanceof PinnedTransaction)) return super.commit(ctx, eventBroadcaster, loggerContext);
    await eventBroadcaster?.dispatchEvent(EventType.beforeTransactionCommit, transaction);
    await transaction.commit();
    if (this.logger.isEnabled('query', loggerContext)) this.logQuery(this.platform.getCommitTransactionSQL(), loggerContext);
    await eventBroadcaster?.dispatchEvent(EventType.afterTransactionCommit, transaction);
  }

  override async rollback(ctx: Knex.Transaction, eventBroadcaster?: TransactionEventBroadcaster, loggerContext?: LogContext): Promise<void> {
    const transaction: unknown = ctx;
    if (!(transaction instanceof PinnedTransaction)) return super.rollback(ctx, eventBroadcaster, loggerContext);
    await eventBroadcaster?.dispatchEvent(EventType.beforeTransactionRollback, transaction);
    await transaction.rollback();
    if (this.logger.isEnabled('query', loggerContext)) this.logQuery(this.platform.getRollbackTransactionSQL(), loggerContext);
    await eventBroadcaster?.dispatchEvent(EventType.afterTransactionRollback, transaction);
  }

  override async execute<T extends ExecuteResult = EntityData<AnyEntity>[]>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Transaction,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const transaction: unknown = ctx ?? undefined;
    if (typeof queryOrKnex !== 'string' || (transaction !== undefined && !(transaction instanceof PinnedTransaction))) {
      return super.execute<T>(queryOrKnex, params, method, ctx, loggerContext);
    }
    if (!this.connected) await this.ensureConnection();
    const query = this.config.get('onQuery')(queryOrKnex, params);
    // The very text knex would have been handed: values inlined by MikroORM's own formatter.
    const formatted = this.platform.formatQuery(query, params);
    const run = async () => {
      const result = transaction instanceof PinnedTransaction ? await transaction.query(formatted) : await this.queryOnPool(formatted);
      return this.transformRawResult<T>(result, method);
    };
    // executeQuery only times the statement for the query log; with the log off that is pure overhead.
    if (!this.logger.isEnabled('query', loggerContext)) return run();
    return this.executeQuery(this.loggedSql(query, formatted, loggerContext), run, { query, params, ...loggerContext });
  }

  /**
   * Runs a prepared statement (see `preparedStatement`) in the transaction `ctx`, or as one
   * autocommit statement on a pooled connection. Answers the rows; errors are raw pg errors.
   */
  async executePrepared<T>(statement: PreparedStatement, values: readonly PreparedValue[], ctx?: Transaction): Promise<T[]> {
    if (!this.connected) await this.ensureConnection();
    const bound = bindValues(values);
    const transaction: unknown = ctx ?? undefined;
    const run = async (): Promise<T[]> => {
      try {
        const result =
          transaction instanceof PinnedTransaction
            ? await transaction.queryPrepared(statement, bound)
            : transaction !== undefined
              ? await this.preparedOnKnexTransaction(transaction, statement, bound)
              : await this.preparedOnPool(statement, bound);
        return result.rows as T[];
      } catch (error) {
        throw withStatement(error, statement.text);
      }
    };
    if (!this.logger.isEnabled('query')) return run();
    return this.executeQuery(statement.text, run, { query: statement.text, params: [...values] });
  }

  private async preparedOnPool(statement: PreparedStatement, values: Array<string | null>): Promise<PgResult> {
    const pool = this.knexClient();
    const connection = await pool.acquireConnection();
    try {
      return await connection.query({ name: statement.name, text: statement.text, values });
    } finally {
      await pool.releaseConnection(connection);
    }
  }

  /** A knex transaction (a savepoint, or one MikroORM opened itself): its client hands out its one connection. */
  private async preparedOnKnexTransaction(transaction: unknown, statement: PreparedStatement, values: Array<string | null>): Promise<PgResult> {
    const knexTransaction = transaction as { client: KnexPgClient; isCompleted?: () => boolean };
    if (knexTransaction.isCompleted?.()) throw new TransactionCompleteError(statement.text);
    const connection: PooledConnection = await knexTransaction.client.acquireConnection();
    return connection.query({ name: statement.name, text: statement.text, values });
  }

  /** One autocommit statement on a pooled connection, as knex's runner would run it. */
  private async queryOnPool(sql: string): Promise<PgResult | PgResult[]> {
    const pool = this.knexClient();
    const connection = await pool.acquireConnection();
    try {
      return await connection.query(sql);
    } catch (error) {
      throw withStatement(error, sql);
    } finally {
      await pool.releaseConnection(connection);
    }
  }

  /** What MikroORM's (private) getSql logs: nothing, the SQL, or the SQL with its values. */
  private loggedSql(query: string, formatted: string, context?: LoggingOptions): string {
    const logger = this.config.getLogger();
    if (!logger.isEnabled('query', context)) return query;
    if (logger.isEnabled('query-params', context)) return formatted;
    return this.knexClient().positionBindings(query);
  }

  private knexClient(): KnexPgClient {
    return this.getKnex().client as KnexPgClient;
  }
}

/** MikroORM's PostgreSQL driver (which adds nothing but its constructor) on `DirectPgConnection`. */
export class DirectPgDriver extends AbstractSqlDriver<DirectPgConnection, PostgreSqlPlatform> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), DirectPgConnection, ['knex', 'pg']);
  }
}
