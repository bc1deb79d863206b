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
import { Pool, types as pgTypes, type CustomTypesConfig, type PoolClient, type QueryResult as PgResult } from 'pg';
import { pgBindValue, toParameterized } from './parameterized-sql';
import { RowHandlerError, type RowHandler } from './statement';
import { PipelineError, sendPipeline } from './pipeline';
import {
  PinnedSavepoint,
  PinnedTransaction,
  TransactionCompleteError,
  pinnedTransactionOf,
  send,
  shiftPosition,
  type KnexPool,
  type PooledConnection,
  type Statement,
} from './pinned-transaction';
import { bindValues, type PreparedStatement, type PreparedValue } from './prepared-statement';
import { leavesConnectionUnusable, statementError } from './statement-errors';
import { cancelRunningStatement, cancelledStatementError, discardIfCancelled } from './statement-cancel';

interface BeginOptions {
  isolationLevel?: IsolationLevel;
  readOnly?: boolean;
  ctx?: Knex.Transaction;
  eventBroadcaster?: TransactionEventBroadcaster;
  loggerContext?: LogContext;
}

type ExecuteResult = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

type KnexQuery = Knex.QueryBuilder | Knex.Raw;

/** Where the ORM's options keep the statement timeout of `withSession`'s work (driverOptions; knex ignores it). */
export const SESSION_STATEMENT_TIMEOUT = 'sessionStatementTimeoutMs';

/**
 * Where the ORM's options say that its URL leads to a transaction pooler (PgBouncer in transaction
 * mode, decision 159): the statement limit of its transactions, and PostgreSQL itself for sessions.
 */
export const TRANSACTION_POOLER = 'transactionPooler';

export interface TransactionPoolerSettings {
  /** Set in every transaction (a pooler forwards no startup parameter but its own few). */
  statementTimeoutMs?: number;
  /** PostgreSQL itself, for `withSession`: a pooler keeps no session from one transaction to the next. */
  directUrl: string;
}

/** Behind a pooler, the most `withSession` work (index builds) one process runs at once on PostgreSQL itself. */
const DIRECT_SESSIONS = 2;
/** How long `withSession` work waits for one of them before it fails (an index build is then retried by its task). */
const DIRECT_SESSION_WAIT_MS = 5_000;

/** A statement with MikroORM's `?` placeholders, its values bound; answers the rows. */
export type SessionQuery = <Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => Promise<Row[]>;

/**
 * MikroORM's PostgreSQL connection with its statements sent straight to `pg`, values always as
 * bind parameters:
 * - every SQL string (`em.execute`, and every query MikroORM's own query builder runs) and every
 *   knex query handed to `execute` goes out as `$n` placeholders with its values beside them
 *   (MikroORM alone would inline the values into the text), on the transaction's connection or
 *   a pooled one, skipping knex's per-query builder, runner, events and query ids;
 * - a top-level transaction is a `PinnedTransaction`: BEGIN is sent only when a statement needs
 *   it (riding on it when it has no values), COMMIT is one round trip, a nested one is a
 *   savepoint, and none of knex's per-transaction objects are built;
 * - `executePrepared` runs a statement PostgreSQL keeps parsed and planned per connection.
 * Behind a transaction pooler (`TRANSACTION_POOLER`), nothing outlives a transaction: statements
 * are unnamed, the statement limit is set in each transaction (`set_config(..., true)`, in the
 * round trip of the first statement), and `withSession` connects to PostgreSQL itself.
 * A failed statement's error names the statement's text and quotes no value (statement-errors.ts).
 */
export class DirectPgConnection extends PostgreSqlConnection {
  private parsers?: CustomTypesConfig;
  /**
   * The pooled connections running an autocommit statement, by the id of the EntityManager it
   * runs for (what MikroORM's logger context carries), so `cancelStatementsOf` can reach them.
   */
  private readonly running = new Map<number, Set<PooledConnection>>();
  /** EntityManagers whose statements were cancelled: their next ones are refused until `forgetCancellation`. */
  private readonly cancelledOwners = new Set<number>();
  private poolerSettings?: { settings: TransactionPoolerSettings | undefined; limitStatement: Statement | undefined };
  /** Behind a pooler: the sessions of `withSession`, on PostgreSQL itself. */
  private directSessions?: Pool;

  /** The pooler's settings, and the statement that sets the statement limit in a transaction (none without a limit). */
  private get pooler(): { settings: TransactionPoolerSettings | undefined; limitStatement: Statement | undefined } {
    if (!this.poolerSettings) {
      const settings = (this.config.get('driverOptions') as Record<string, unknown>)[TRANSACTION_POOLER] as TransactionPoolerSettings | undefined;
      const limit = settings?.statementTimeoutMs;
      this.poolerSettings = {
        settings,
        // The limit is this process's own setting, an integer checked at start-up: constant text, planned once per connection.
        limitStatement: limit === undefined ? undefined : { text: `SELECT set_config('statement_timeout', '${Math.trunc(limit)}', true)`, values: [] },
      };
    }
    return this.poolerSettings;
  }

  /** A prepared statement's name, unless a pooler could hand the next transaction another server connection. */
  private preparedName(prepared: PreparedStatement): string | undefined {
    return this.pooler.settings ? undefined : prepared.name;
  }

  override async begin(options: BeginOptions = {}): Promise<Knex.Transaction> {
    if (options.ctx) return this.beginSavepoint(options.ctx, options.loggerContext);
    await options.eventBroadcaster?.dispatchEvent(EventType.beforeTransactionStart);
    const limit = this.pooler.limitStatement;
    const beginSql = limit ? [...this.platform.getBeginTransactionSQL(options), limit.text] : this.platform.getBeginTransactionSQL(options);
    const pool = this.knexPool();
    const transaction = new PinnedTransaction(pool, beginSql, this.typeParsers());
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
    if (transaction instanceof PinnedSavepoint) return transaction.release();
    if (!(transaction instanceof PinnedTransaction)) throw unknownTransaction();
    await eventBroadcaster?.dispatchEvent(EventType.beforeTransactionCommit, transaction);
    await transaction.commit();
    if (this.logger.isEnabled('query', loggerContext)) this.logQuery(this.platform.getCommitTransactionSQL(), loggerContext);
    await eventBroadcaster?.dispatchEvent(EventType.afterTransactionCommit, transaction);
  }

  override async rollback(ctx: Knex.Transaction, eventBroadcaster?: TransactionEventBroadcaster, loggerContext?: LogContext): Promise<void> {
    const transaction: unknown = ctx;
    if (transaction instanceof PinnedSavepoint) return transaction.rollback();
    if (!(transaction instanceof PinnedTransaction)) throw unknownTransaction();
    await eventBroadcaster?.dispatchEvent(EventType.beforeTransactionRollback, transaction);
    await transaction.rollback();
    if (this.logger.isEnabled('query', loggerContext)) this.logQuery(this.platform.getRollbackTransactionSQL(), loggerContext);
    await eventBroadcaster?.dispatchEvent(EventType.afterTransactionRollback, transaction);
  }

  override async execute<T extends ExecuteResult = EntityData<AnyEntity>[]>(
    queryOrKnex: string | KnexQuery,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Transaction,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    if (!this.connected) await this.ensureConnection();
    let sql: string;
    let context: unknown = ctx ?? undefined;
    if (typeof queryOrKnex === 'string') {
      sql = queryOrKnex;
    } else {
      // A knex query made `.transacting(trx)` belongs to that transaction, as in MikroORM's execute.
      if (context === undefined && (queryOrKnex as unknown as { client: { transacting?: boolean } }).client.transacting) context = queryOrKnex;
      const compiled = queryOrKnex.toSQL();
      sql = compiled.sql;
      params = [...(compiled.bindings ?? [])];
    }
    const transaction = this.transactionOf(context);
    const statement = toParameterized(this.platform, this.config.get('onQuery')(sql, params), params);
    const run = async () => {
      if (transaction?.completed) throw new TransactionCompleteError(statement.text);
      try {
        const result = transaction ? await transaction.query(statement) : await this.onPool(statement, ownerOf(loggerContext));
        return this.transformRawResult<T>(result, method);
      } catch (error) {
        throw statementError(error, statement.text);
      }
    };
    // executeQuery only times the statement for the query log; with the log off that is pure overhead.
    if (!this.logger.isEnabled('query', loggerContext)) return run();
    return this.executeQuery(statement.text, run, { query: statement.text, ...loggerContext });
  }

  /**
   * Runs a prepared statement (see `preparedStatement`) in the transaction `ctx`, or as one
   * autocommit statement on a pooled connection. Answers the rows; errors are raw pg errors.
   */
  async executePrepared<T>(prepared: PreparedStatement, values: readonly PreparedValue[], ctx?: Transaction, owner?: number): Promise<T[]> {
    if (!this.connected) await this.ensureConnection();
    const transaction = this.transactionOf(ctx ?? undefined);
    const statement: Statement = { name: this.preparedName(prepared), text: prepared.text, values: bindValues(values) };
    const run = async (): Promise<T[]> => {
      if (transaction?.completed) throw new TransactionCompleteError(statement.text);
      try {
        const result = transaction ? await transaction.query(statement) : await this.onPool(statement, owner);
        return (result as PgResult).rows as T[];
      } catch (error) {
        throw statementError(error, statement.text);
      }
    };
    if (!this.logger.isEnabled('query')) return run();
    return this.executeQuery(statement.text, run, { query: statement.text });
  }

  /**
   * `execute` for a statement whose rows go to `onRow` one at a time as they arrive (as text, see
   * `Statement.onRow`) instead of coming back together; answers how many there were.
   */
  async executeStreamed(sql: string, params: readonly unknown[], onRow: RowHandler, ctx?: Transaction, owner?: number): Promise<number> {
    if (!this.connected) await this.ensureConnection();
    const transaction = this.transactionOf(ctx ?? undefined);
    const statement: Statement = { ...toParameterized(this.platform, this.config.get('onQuery')(sql, [...params]), params), onRow };
    const run = async (): Promise<number> => {
      if (transaction?.completed) throw new TransactionCompleteError(statement.text);
      try {
        const result = transaction ? await transaction.query(statement) : await this.onPool(statement, owner);
        return (result as PgResult).rowCount ?? 0;
      } catch (error) {
        // The handler's own error goes back as it was: neither the statement's nor the database's.
        if (error instanceof RowHandlerError) throw error;
        throw statementError(error, statement.text);
      }
    };
    if (!this.logger.isEnabled('query')) return run();
    return this.executeQuery(statement.text, run, { query: statement.text });
  }

  /**
   * A statement written for `pg` itself (`$n` placeholders, values as pg binds them: objects as
   * JSON, arrays as PostgreSQL arrays), for a library that writes its own SQL (the job queue): in
   * the transaction `ctx`, or as one autocommit statement on a pooled connection.
   */
  async executeText<T>(text: string, values: readonly unknown[], ctx?: Transaction): Promise<T[]> {
    if (!this.connected) await this.ensureConnection();
    const transaction = this.transactionOf(ctx ?? undefined);
    const statement: Statement = { text, values: values.map(pgBindValue) };
    const run = async (): Promise<T[]> => {
      if (transaction?.completed) throw new TransactionCompleteError(statement.text);
      try {
        const result = transaction ? await transaction.query(statement) : await this.onPool(statement);
        return (result as PgResult).rows as T[];
      } catch (error) {
        throw statementError(error, statement.text);
      }
    };
    if (!this.logger.isEnabled('query')) return run();
    return this.executeQuery(statement.text, run, { query: statement.text });
  }

  /**
   * `executeText` for a write nothing in the transaction `ctx` reads back (a job queued by an
   * outbox): sent with the transaction's COMMIT, in its round trip, as `executePreparedAtCommit`.
   */
  async executeTextAtCommit(text: string, values: readonly unknown[], ctx?: Transaction): Promise<void> {
    const context: unknown = ctx ?? undefined;
    if (!(context instanceof PinnedTransaction)) {
      await this.executeText(text, values, ctx);
      return;
    }
    context.deferUntilCommit({ text, values: values.map(pgBindValue) });
    if (this.logger.isEnabled('query')) this.logQuery(`${text} -- sent with COMMIT`);
  }

  /**
   * A prepared write nothing in the transaction `ctx` reads back (an outbox row): sent with the
   * transaction's COMMIT, in its round trip, when `ctx` is a top-level transaction; run at once in
   * a savepoint (whose rollback must take it back) or as an autocommit statement without one.
   */
  async executePreparedAtCommit(prepared: PreparedStatement, values: readonly PreparedValue[], ctx?: Transaction): Promise<void> {
    const context: unknown = ctx ?? undefined;
    if (!(context instanceof PinnedTransaction)) {
      await this.executePrepared(prepared, values, ctx);
      return;
    }
    context.deferUntilCommit({ name: this.preparedName(prepared), text: prepared.text, values: bindValues(values) });
    if (this.logger.isEnabled('query')) this.logQuery(`${prepared.text} -- sent with COMMIT`);
  }

  /**
   * Runs `work` on one pooled connection of its own, outside any transaction, for what needs one
   * session (session advisory locks, CREATE INDEX CONCURRENTLY). Statements as for `execute`.
   */
  async withSession<T>(work: (run: SessionQuery) => Promise<T>): Promise<T> {
    if (!this.connected) await this.ensureConnection();
    // Such work (an index build, a wait for an advisory lock) may take longer than a request's statement.
    const timeout = (this.config.get('driverOptions') as Record<string, unknown>)[SESSION_STATEMENT_TIMEOUT];
    const directUrl = this.pooler.settings?.directUrl;
    if (directUrl) return this.withDirectSession(directUrl, typeof timeout === 'number' ? timeout : undefined, work);
    const pool = this.knexPool();
    const connection = await pool.acquireConnection();
    const run = this.sessionQuery(connection);
    let raised = false;
    try {
      if (typeof timeout === 'number') {
        raised = true;
        await run("SELECT set_config('statement_timeout', ?, false)", [String(timeout)]);
      }
      return await work(run);
    } finally {
      // RESET goes back to the connection's startup value; a connection that cannot is not pooled again.
      if (raised) await run('RESET statement_timeout').catch(() => connection.end().catch(() => undefined));
      await pool.releaseConnection(connection);
    }
  }

  /**
   * `withSession` behind a pooler: a connection of a small pool of its own to PostgreSQL itself
   * (`DIRECT_SESSIONS`), so that however many callers build indexes at once, this process holds no
   * more than that many direct sessions; one waits at most `DIRECT_SESSION_WAIT_MS` for its turn.
   * A session whose work failed is closed, not reused: it may still hold a session advisory lock.
   */
  private async withDirectSession<T>(directUrl: string, timeoutMs: number | undefined, work: (run: SessionQuery) => Promise<T>): Promise<T> {
    if (!this.directSessions) {
      const limit = timeoutMs ?? this.pooler.settings?.statementTimeoutMs;
      this.directSessions = new Pool({
        connectionString: directUrl,
        types: this.typeParsers(),
        max: DIRECT_SESSIONS,
        connectionTimeoutMillis: DIRECT_SESSION_WAIT_MS,
        idleTimeoutMillis: 10_000,
        ...(limit === undefined ? {} : { statement_timeout: limit }),
      });
      // A session that dies while idle must not take the process down: the pool drops it.
      this.directSessions.on('error', () => undefined);
    }
    const client = await this.directSessions.connect();
    // A session that dies under the work (its backend terminated, the network cut) has ended before
    // it is released: nothing is left to wait for then. Its error, between two of the work's
    // statements, is the work's next statement's to report: unheard, it would end the process.
    let ended = false;
    const onEnd = () => (ended = true);
    const onError = () => undefined;
    client.once('end', onEnd);
    client.on('error', onError);
    let failed = true;
    try {
      const result = await work(this.sessionQuery(client as unknown as PooledConnection));
      failed = false;
      return result;
    } finally {
      client.off('end', onEnd);
      client.off('error', onError);
      if (!failed) client.release();
      else if (ended) client.release(true);
      else await releaseClosed(client);
    }
  }

  override async close(force?: boolean): Promise<void> {
    const sessions = this.directSessions;
    this.directSessions = undefined;
    await sessions?.end().catch(() => undefined);
    await super.close(force);
  }

  private sessionQuery(connection: PooledConnection): SessionQuery {
    return async <Row>(sql: string, params: readonly unknown[] = []) => {
      const statement = toParameterized(this.platform, sql, params);
      try {
        return (await send(connection, statement)).rows as Row[];
      } catch (error) {
        throw statementError(error, statement.text);
      }
    };
  }

  private async beginSavepoint(ctx: unknown, loggerContext?: LogContext): Promise<Knex.Transaction> {
    const transaction = this.transactionOf(ctx);
    if (!transaction) throw unknownTransaction();
    const savepoint = await transaction.savepoint();
    if (this.logger.isEnabled('query', loggerContext)) this.logQuery(`SAVEPOINT ${savepoint.name}`, loggerContext);
    return savepoint as unknown as Knex.Transaction;
  }

  /** The pinned transaction of a context; never a statement silently run outside the transaction it was meant for. */
  private transactionOf(context: unknown): PinnedTransaction | undefined {
    if (context === undefined || context === null) return undefined;
    const transaction = pinnedTransactionOf(context);
    if (!transaction) throw unknownTransaction();
    return transaction;
  }

  /**
   * Cancels what the EntityManager `owner` runs (its client went away): its autocommit statements
   * in flight and its transaction's, by a cancel request each; its later statements are refused
   * until `forgetCancellation(owner)`. A connection that got a cancel request is ended, not pooled.
   */
  cancelStatementsOf(owner: number, transactionContext: unknown): void {
    this.cancelledOwners.add(owner);
    for (const connection of this.running.get(owner) ?? []) cancelRunningStatement(connection);
    if (transactionContext !== undefined && transactionContext !== null) pinnedTransactionOf(transactionContext)?.cancel();
  }

  /** The owner is done (its request ended): nothing of it is refused any more, nothing is kept. */
  forgetCancellation(owner: number): void {
    this.cancelledOwners.delete(owner);
  }

  /** One autocommit statement on a pooled connection, reachable by `cancelStatementsOf(owner)` while it runs. */
  private async onPool(statement: Statement, owner?: number): Promise<PgResult> {
    if (owner !== undefined && this.cancelledOwners.has(owner)) throw cancelledStatementError();
    const pool = this.knexPool();
    const connection = await pool.acquireConnection();
    // Ending a dead connection before it goes back makes the pool drop it (it watches each
    // connection's 'end'), instead of handing it to the next caller before it heard of its death.
    const dropIfDead = async (error: unknown): Promise<never> => {
      if (leavesConnectionUnusable(error)) await connection.end().catch(() => undefined);
      throw error;
    };
    if (owner === undefined) {
      try {
        return await this.sendAutocommit(connection, statement).catch(dropIfDead);
      } finally {
        await pool.releaseConnection(connection);
      }
    }
    let running = this.running.get(owner);
    if (!running) this.running.set(owner, (running = new Set()));
    running.add(connection);
    try {
      // Cancelled while the pool made it wait: the statement never starts.
      if (this.cancelledOwners.has(owner)) throw cancelledStatementError();
      return await this.sendAutocommit(connection, statement).catch(dropIfDead);
    } finally {
      running.delete(connection);
      if (running.size === 0) this.running.delete(owner);
      await discardIfCancelled(connection);
      await pool.releaseConnection(connection);
    }
  }

  /**
   * An autocommit statement; behind a pooler with a statement limit, the limit goes first in the
   * same round trip and the same implicit transaction, so it binds the statement and nothing after.
   */
  private async sendAutocommit(connection: PooledConnection, statement: Statement): Promise<PgResult> {
    const limit = this.pooler.limitStatement;
    if (!limit) return send(connection, statement);
    if (statement.values.length === 0 && !statement.name && !statement.onRow) {
      // Text that may hold several statements (a library's own BEGIN ... COMMIT): one simple-protocol message.
      try {
        const results = (await connection.query(`${limit.text};${statement.text}`)) as unknown as PgResult[];
        return (results.length === 2 ? results[1] : results.slice(1)) as PgResult;
      } catch (error) {
        shiftPosition(error, limit.text.length + 1);
        throw error;
      }
    }
    try {
      const results = await sendPipeline(connection, [limit, statement], this.typeParsers());
      return results[1];
    } catch (error) {
      throw error instanceof PipelineError ? error.cause : error;
    }
  }

  /** The type parsers MikroORM gives its pg clients (dates as text...), for rows read outside pg's own queries. */
  private typeParsers(): CustomTypesConfig {
    this.parsers ??= (this.getConnectionOptions() as { types?: CustomTypesConfig }).types ?? pgTypes;
    return this.parsers;
  }

  private knexPool(): KnexPool {
    return this.getKnex().client as KnexPool;
  }
}

/** The EntityManager a statement runs for: MikroORM's logger context carries its id. */
function ownerOf(loggerContext: LoggingOptions | undefined): number | undefined {
  const id = (loggerContext as { id?: unknown } | undefined)?.id;
  return typeof id === 'number' ? id : undefined;
}

function unknownTransaction(): Error {
  return new Error('DirectPgConnection runs statements only in the transactions it opened itself');
}

/** MikroORM's PostgreSQL driver (which adds nothing but its constructor) on `DirectPgConnection`. */
export class DirectPgDriver extends AbstractSqlDriver<DirectPgConnection, PostgreSqlPlatform> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), DirectPgConnection, ['knex', 'pg']);
  }
}

/** The most a failed direct session's close is waited for. */
const SESSION_CLOSE_WAIT_MS = 5_000;

/**
 * Closes a session instead of pooling it again, and returns once PostgreSQL has closed its end:
 * the backend releases the session's locks as it exits, so a caller that goes on at once must not
 * find them still held.
 */
export async function releaseClosed(client: Pick<PoolClient, 'once' | 'release'>): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    // Not unref'd: a process with nothing else to do must still wait for the close and go on.
    const timer = setTimeout(resolve, SESSION_CLOSE_WAIT_MS);
    client.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  client.release(true);
  await closed;
}
