import type { Client, QueryResult } from 'pg';
import { beginThenExecute, type PreparedStatement } from './prepared-statement';

/** A pooled `pg` connection as knex hands it out; knex's pool drops one flagged as disposed. */
export type PooledConnection = Client & { __knex__disposed?: unknown };

/** A knex query object (`{ sql, bindings, options }`); knex stores the driver's answer on it. */
export interface KnexQueryObject {
  sql: string;
  bindings?: readonly unknown[];
  options?: Record<string, unknown>;
  response?: unknown;
}

/** The parts of knex's PostgreSQL client this module relies on (knex's typings omit the `_` ones). */
export interface KnexPgClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<void>;
  positionBindings(sql: string): string;
  transaction(container: unknown, config: unknown, outerTx?: unknown): PromiseLike<unknown> & { catch(onRejected: (error: unknown) => void): unknown };
  _query(connection: PooledConnection, obj: KnexQueryObject): Promise<KnexQueryObject>;
  _stream(connection: PooledConnection, obj: KnexQueryObject, stream: unknown, options: unknown): Promise<unknown>;
  transacting?: boolean;
}

/**
 * `idle`: nothing sent yet. `open`: BEGIN ran (PostgreSQL itself refuses statements once one of
 * them failed). `aborted`: the statement carrying BEGIN failed, and we refuse the rest ourselves.
 */
type TransactionState = 'idle' | 'open' | 'aborted';

/** SQLSTATE 25P02, what PostgreSQL answers to any statement in a failed transaction. */
const IN_FAILED_TRANSACTION = '25P02';

export class TransactionCompleteError extends Error {
  constructor(sql: string) {
    super(`Transaction query already complete: ${sql}`);
    this.name = 'TransactionCompleteError';
  }
}

/** knex's convention: a failed statement's message starts with the statement. */
export function withStatement(error: unknown, sql: string): unknown {
  if (error instanceof Error) error.message = `${sql} - ${error.message}`;
  return error;
}

function inFailedTransaction(): Error {
  return Object.assign(new Error('current transaction is aborted, commands ignored until end of transaction block'), {
    code: IN_FAILED_TRANSACTION,
    severity: 'ERROR',
  });
}

/** A multi-statement simple query answers with one result per statement; drop the BEGIN's. */
function withoutBeginResult(result: QueryResult | QueryResult[]): QueryResult | QueryResult[] {
  if (!Array.isArray(result)) return result;
  return result.length === 2 ? result[1] : result.slice(1);
}

/** Error positions count from the start of what was sent; report them against the caller's SQL. */
function shiftPosition(error: unknown, by: number): void {
  if (error instanceof Error && 'position' in error && typeof error.position === 'string') {
    const position = Number(error.position) - by;
    if (position > 0) error.position = String(position);
  }
}

/**
 * A transaction pinned to one pooled connection and driven straight through `pg`, without knex's
 * per-transaction machinery (a whole knex instance per transaction, promise chains, events):
 * - BEGIN travels in the same round trip as the first statement (one simple-protocol message,
 *   `begin;<statement>`), so a transaction costs one round trip more than its statements: COMMIT.
 *   A transaction that never runs a statement costs no round trip at all.
 * - MikroORM and knex still reach it: `client` is knex's client bound to this connection, so
 *   `.transacting(trx)` works, and `transaction()` opens a knex savepoint for a nested
 *   `em.transactional`.
 *
 * When the statement carrying BEGIN fails, PostgreSQL has either left the transaction aborted or,
 * for a syntax error (which rejects the whole message), never run BEGIN. Either way the
 * transaction behaves as if BEGIN had been sent alone: every later statement is refused with
 * 25P02 and the end of the transaction is a ROLLBACK.
 */
export class PinnedTransaction {
  private state: TransactionState = 'idle';
  private completed = false;
  private knexClient?: KnexPgClient;
  /** MikroORM numbers savepoints on the parent transaction. */
  index?: number;

  constructor(
    private readonly pool: KnexPgClient,
    readonly connection: PooledConnection,
    private readonly beginSql: string,
  ) {}

  /** knex's client, pinned to this connection, for queries knex itself runs (`.transacting(trx)`). */
  get client(): KnexPgClient {
    this.knexClient ??= this.bindKnexClient();
    return this.knexClient;
  }

  /** Runs SQL whose values are already inlined (a simple-protocol query) in the transaction. */
  async query(sql: string): Promise<QueryResult | QueryResult[]> {
    this.assertNotComplete(sql);
    try {
      if (this.state === 'open') return await this.connection.query(sql);
      return withoutBeginResult(await this.queryWithBegin(sql));
    } catch (error) {
      throw withStatement(error, sql);
    }
  }

  /** Runs a prepared statement in the transaction; BEGIN, if still due, goes in the same round trip. */
  async queryPrepared(statement: PreparedStatement, values: Array<string | null>): Promise<QueryResult> {
    this.assertNotComplete(statement.text);
    if (this.state === 'open') return this.connection.query({ name: statement.name, text: statement.text, values });
    if (this.state === 'aborted') throw inFailedTransaction();
    try {
      const [, result] = await beginThenExecute(this.connection, this.beginSql, statement, values);
      if (this.state === 'idle') this.state = 'open';
      return result;
    } catch (error) {
      this.state = 'aborted';
      throw error;
    }
  }

  /** For MikroORM's nested `em.transactional`: a knex savepoint transaction on this connection. */
  async transaction(_container: unknown, config: Record<string, unknown> = {}): Promise<unknown> {
    await this.begin();
    return new Promise((resolve, reject) => {
      this.client.transaction(resolve, { ...config, userParams: {}, doNotRejectOnRollback: true }).catch(reject);
    });
  }

  async commit(): Promise<void> {
    this.assertNotComplete('COMMIT');
    this.completed = true;
    try {
      if (this.state === 'open') await this.run('COMMIT');
      // PostgreSQL answers COMMIT of a failed transaction with a rollback: nothing to commit.
      else if (this.state === 'aborted') await this.run('ROLLBACK');
    } finally {
      await this.pool.releaseConnection(this.connection);
    }
  }

  /** Never throws: the caller is already handling the error that led here. */
  async rollback(): Promise<void> {
    if (this.completed) return;
    this.completed = true;
    try {
      if (this.state !== 'idle') await this.run('ROLLBACK');
    } catch (error) {
      // A connection that cannot roll back must not serve anyone else: knex's pool drops it (and logs why).
      this.connection.__knex__disposed = error;
    } finally {
      await this.pool.releaseConnection(this.connection);
    }
  }

  private async run(sql: string): Promise<QueryResult> {
    try {
      return await this.connection.query(sql);
    } catch (error) {
      throw withStatement(error, sql);
    }
  }

  private async queryWithBegin(sql: string): Promise<QueryResult | QueryResult[]> {
    if (this.state === 'aborted') throw inFailedTransaction();
    // A statement issued while this one is on its way carries BEGIN too (PostgreSQL only warns about
    // the second BEGIN), so it can never run outside the transaction should this one fail to parse.
    try {
      const result = await this.connection.query(`${this.beginSql};${sql}`);
      if (this.state === 'idle') this.state = 'open';
      return result;
    } catch (error) {
      this.state = 'aborted';
      shiftPosition(error, this.beginSql.length + 1);
      throw error;
    }
  }

  /** BEGIN on its own, for what cannot carry it: bound parameters, streams, savepoints. */
  private async begin(): Promise<void> {
    if (this.state === 'open') return;
    if (this.state === 'aborted') throw inFailedTransaction();
    try {
      await this.run(this.beginSql);
      if (this.state === 'idle') this.state = 'open';
    } catch (error) {
      this.state = 'aborted';
      throw error;
    }
  }

  private assertNotComplete(sql: string): void {
    if (this.completed) throw new TransactionCompleteError(sql);
  }

  private bindKnexClient(): KnexPgClient {
    const { pool, connection } = this;
    const pinned: KnexPgClient = Object.create(pool);
    const query = async (target: PooledConnection, obj: KnexQueryObject): Promise<KnexQueryObject> => {
      if (target !== connection) throw new Error('Invalid connection for transaction query.');
      this.assertNotComplete(obj.sql);
      if (this.state !== 'open') {
        const plain = (obj.bindings ?? []).length === 0 && Object.keys(obj.options ?? {}).length === 0;
        if (plain) {
          obj.response = withoutBeginResult(await this.queryWithBegin(obj.sql));
          return obj;
        }
        await this.begin();
      }
      return pool._query.call(pinned, target, obj);
    };
    const stream = async (target: PooledConnection, obj: KnexQueryObject, output: unknown, options: unknown): Promise<unknown> => {
      this.assertNotComplete(obj.sql);
      await this.begin();
      return pool._stream.call(pinned, target, obj, output, options);
    };
    return Object.assign(pinned, {
      transacting: true,
      acquireConnection: async () => connection,
      releaseConnection: async () => undefined,
      _query: query,
      _stream: stream,
    });
  }
}
