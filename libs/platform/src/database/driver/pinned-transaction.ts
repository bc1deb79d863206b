import type { CustomTypesConfig, QueryResult } from 'pg';
import { PipelineError, sendPipeline } from './pipeline';
import { canPipeline, RowHandlerError, send, type PooledConnection, type Statement } from './statement';
import { statementError } from './statement-errors';
import { cancelRunningStatement, cancelledStatementError, discardIfCancelled, wasCancelled } from './statement-cancel';

export type { PooledConnection, Statement } from './statement';
export { send } from './statement';

/** knex's client as this module uses it: the pool methods of its public typings, nothing private. */
export interface KnexPool {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
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

function inFailedTransaction(): Error {
  return Object.assign(new Error('current transaction is aborted, commands ignored until end of transaction block'), {
    code: IN_FAILED_TRANSACTION,
    severity: 'ERROR',
  });
}

/** Error positions count from the start of what was sent; report them against the caller's SQL. */
export function shiftPosition(error: unknown, by: number): void {
  if (error instanceof Error && 'position' in error && typeof error.position === 'string') {
    const position = Number(error.position) - by;
    if (position > 0) error.position = String(position);
  }
}

/** Where a transaction context of MikroORM's leads: the pinned transaction that owns its connection. */
const OWNER = Symbol('pinned transaction');

interface PinnedKnexClient extends KnexPool {
  transacting: true;
  [OWNER]: PinnedTransaction;
}

/** The pinned transaction behind a transaction context, or behind a knex query made `.transacting(trx)`. */
export function pinnedTransactionOf(context: unknown): PinnedTransaction | undefined {
  if (context instanceof PinnedTransaction) return context;
  if (context instanceof PinnedSavepoint) return context.transaction;
  const client = (context as { client?: Partial<PinnedKnexClient> } | null | undefined)?.client;
  return client?.[OWNER];
}

/**
 * A transaction pinned to one pooled connection and driven straight through `pg`, without knex's
 * per-transaction machinery (a whole knex instance per transaction, promise chains, events):
 * - BEGIN is sent lazily, with the first statement, in its round trip: a statement without values
 *   as one simple-protocol message (`begin;<statement>`), any other in a pipeline (pipeline.ts).
 *   A transaction that never runs a statement costs no round trip at all.
 * - Writes nothing in the transaction reads back (outbox rows) can wait for COMMIT and travel
 *   with it (`deferUntilCommit`): a transaction of one INSERT and its outbox row is two round trips.
 * - MikroORM and knex still reach it: `client` is knex's client bound to this connection, so
 *   `.transacting(trx)` compiles with knex's own client, and whatever knex runs on it gets this
 *   connection with the transaction open. A nested `em.transactional` gets a savepoint.
 * - SAVEPOINT and RELEASE SAVEPOINT travel with the next statement, in its round trip: a savepoint
 *   costs a round trip of its own only when it is rolled back to. One inside which nothing ran is
 *   never sent; a release still unsent at COMMIT is dropped (COMMIT releases every savepoint).
 *
 * When the statement carrying BEGIN fails, PostgreSQL has either left the transaction aborted or,
 * for a statement that did not parse, never run BEGIN. Either way the transaction behaves as if
 * BEGIN had been sent alone: every later statement is refused with 25P02 and the end of the
 * transaction is a ROLLBACK.
 */
export class PinnedTransaction {
  private state: TransactionState = 'idle';
  private isCompleted = false;
  private cancelRequested = false;
  private savepoints = 0;
  private knexClient?: PinnedKnexClient;
  private readonly deferred: Statement[] = [];
  /** SAVEPOINT and RELEASE SAVEPOINT not sent yet: they go first with the next statement. */
  private readonly savepointStatements: Statement[] = [];
  private readonly beginSql: string;
  private readonly beginStatements: readonly Statement[];

  /** The pooled connection, taken when the first statement goes out (never, for a transaction that sends none). */
  private connection!: PooledConnection;
  private acquired?: Promise<PooledConnection>;

  constructor(
    private readonly pool: KnexPool,
    begin: readonly string[],
    /** The connection's type parsers, for the rows of pipelined statements. */
    private readonly types: CustomTypesConfig,
  ) {
    this.beginSql = begin.join(';');
    this.beginStatements = begin.map((text) => ({ text, values: [] }));
  }

  get completed(): boolean {
    return this.isCompleted;
  }

  /** knex's client pinned to this connection, for `.transacting(trx)` (MikroORM's query builder sets it). */
  get client(): PinnedKnexClient {
    this.knexClient ??= Object.assign(Object.create(this.pool) as KnexPool, {
      transacting: true as const,
      [OWNER]: this,
      acquireConnection: async () => {
        await this.begin();
        await this.sendSavepointStatements();
        return this.connection;
      },
      releaseConnection: async () => undefined,
    });
    return this.knexClient;
  }

  /** Runs a statement in the transaction, after BEGIN if still due (in the same message when it can). */
  async query(statement: Statement): Promise<QueryResult | QueryResult[]> {
    if (this.isCompleted) throw new TransactionCompleteError(statement.text);
    if (this.cancelRequested) throw cancelledStatementError();
    if (this.state === 'open') return this.savepointStatements.length > 0 ? this.withSavepointStatements(statement) : send(this.connection, statement);
    if (this.state === 'aborted') throw inFailedTransaction();
    await this.connect();
    if (this.cancelRequested) throw cancelledStatementError();
    if (this.savepointStatements.length > 0) {
      // A savepoint before the transaction's first statement (rare): BEGIN on its own.
      await this.begin();
      return this.withSavepointStatements(statement);
    }
    if (statement.values.length === 0 && !statement.name && !statement.onRow) return this.withBegin(() => this.textWithBegin(statement.text));
    if (canPipeline(this.connection, statement)) return this.withBegin(() => this.pipelinedWithBegin(statement));
    await this.begin();
    return send(this.connection, statement);
  }

  /**
   * Queues a write that nothing in this transaction reads back, to be sent with COMMIT in one
   * round trip. Its failure fails the commit: the transaction is rolled back and the error thrown.
   */
  deferUntilCommit(statement: Statement): void {
    if (this.isCompleted) throw new TransactionCompleteError(statement.text);
    this.deferred.push(statement);
  }

  /**
   * Its client went away: the statement it runs is cancelled (a cancel request), the ones after
   * are refused, and its end discards the connection instead of pooling it. Never a COMMIT: a
   * completed transaction is left alone.
   */
  cancel(): void {
    if (this.isCompleted || this.cancelRequested) return;
    this.cancelRequested = true;
    if (this.state !== 'idle') cancelRunningStatement(this.connection);
  }

  /** For MikroORM's nested `em.transactional`: SAVEPOINT goes with the next statement. */
  async savepoint(): Promise<PinnedSavepoint> {
    if (this.isCompleted) throw new TransactionCompleteError('SAVEPOINT');
    if (this.state === 'aborted') throw inFailedTransaction();
    const savepoint = new PinnedSavepoint(this, `trx${++this.savepoints}`);
    this.savepointStatements.push({ text: `SAVEPOINT ${savepoint.name}`, values: [] });
    return savepoint;
  }

  /** The savepoint's work is kept: nothing to send when it never was sent, else RELEASE with the next statement. */
  releaseSavepoint(name: string): void {
    if (this.forgetUnsentSavepoint(name)) return;
    this.savepointStatements.push({ text: `RELEASE SAVEPOINT ${name}`, values: [] });
  }

  /** The savepoint's work is undone: nothing to send when it never was sent, else ROLLBACK TO at once. */
  async rollbackToSavepoint(name: string): Promise<void> {
    if (this.forgetUnsentSavepoint(name)) return;
    // What still waits was queued inside this savepoint (whatever came before went with a statement
    // since): the rollback undoes it anyway.
    this.savepointStatements.length = 0;
    await this.run(`ROLLBACK TO SAVEPOINT ${name}`);
  }

  /** Drops a savepoint not sent yet, with what was queued inside it; says whether there was one. */
  private forgetUnsentSavepoint(name: string): boolean {
    const index = this.savepointStatements.findIndex((statement) => statement.text === `SAVEPOINT ${name}`);
    if (index < 0) return false;
    this.savepointStatements.splice(index);
    return true;
  }

  /**
   * The savepoint statements due, then `statement`, in one round trip: as one simple-protocol
   * message for a statement without values (which may hold several), else in a pipeline.
   */
  private async withSavepointStatements(statement: Statement): Promise<QueryResult | QueryResult[]> {
    const due = this.savepointStatements.splice(0);
    if (statement.values.length === 0 && !statement.name && !statement.onRow) {
      const prefix = due.map((control) => control.text).join(';');
      try {
        const results = (await this.connection.query(`${prefix};${statement.text}`)) as unknown as QueryResult[];
        return results.length === due.length + 1 ? results[due.length] : results.slice(due.length);
      } catch (error) {
        shiftPosition(error, prefix.length + 1);
        throw error;
      }
    }
    if (!canPipeline(this.connection, statement)) {
      for (const control of due) await this.run(control.text);
      return send(this.connection, statement);
    }
    const statements = [...due, statement];
    try {
      const results = await sendPipeline(this.connection, statements, this.types);
      return results[results.length - 1];
    } catch (error) {
      if (!(error instanceof PipelineError)) throw error;
      throw error.statementIndex < due.length ? statementError(error.cause, statements[error.statementIndex].text) : error.cause;
    }
  }

  /** The savepoint statements due, each on its own: before what cannot carry them (knex's queries). */
  private async sendSavepointStatements(): Promise<void> {
    for (const control of this.savepointStatements.splice(0)) await this.run(control.text);
  }

  async commit(): Promise<void> {
    if (this.isCompleted) throw new TransactionCompleteError('COMMIT');
    this.isCompleted = true;
    const deferred = this.deferred.splice(0);
    // COMMIT releases every savepoint; one never sent holds nothing.
    this.savepointStatements.length = 0;
    try {
      // PostgreSQL answers COMMIT of a failed transaction with a rollback: nothing to commit.
      if (this.state === 'aborted') await this.run('ROLLBACK');
      else if (deferred.length > 0) await this.commitWith(deferred);
      else if (this.state === 'open') await this.run('COMMIT');
    } finally {
      await this.release();
    }
  }

  /** Never throws: the caller is already handling the error that led here. */
  async rollback(): Promise<void> {
    if (this.isCompleted) return;
    this.isCompleted = true;
    this.deferred.length = 0;
    this.savepointStatements.length = 0;
    try {
      // A cancelled connection is ended, not rolled back: PostgreSQL rolls back what a closed session left.
      if (this.state !== 'idle' && !wasCancelled(this.connection)) await this.rollbackOrDrop();
    } finally {
      await this.release();
    }
  }

  /**
   * Takes the pooled connection for the first statement: the transaction holds one only from
   * then to its end, not while the work before its first statement runs (validation, mostly).
   * A failed take leaves the transaction idle, so nothing is rolled back on a connection never had.
   */
  private async connect(): Promise<void> {
    if (this.state !== 'idle') return;
    this.acquired ??= this.pool.acquireConnection();
    this.connection = await this.acquired;
  }

  private async release(): Promise<void> {
    const taken = await this.acquired?.catch(() => undefined);
    if (!taken) return;
    await discardIfCancelled(taken);
    await this.pool.releaseConnection(taken);
  }

  /** A transaction-control statement (no values), reported as itself when it fails. */
  async run(sql: string): Promise<QueryResult> {
    try {
      return await this.connection.query(sql);
    } catch (error) {
      throw statementError(error, sql);
    }
  }

  private async withBegin<T>(work: () => Promise<T>): Promise<T> {
    // A statement issued while this one is on its way carries BEGIN too (PostgreSQL only warns about
    // the second BEGIN), so it can never run outside the transaction should this one fail to parse.
    try {
      const result = await work();
      if (this.state === 'idle') this.state = 'open';
      return result;
    } catch (error) {
      // A row handler's failure is the caller's: PostgreSQL ran BEGIN and the statement.
      this.state = error instanceof RowHandlerError ? 'open' : 'aborted';
      throw error;
    }
  }

  /** BEGIN (when due), the deferred writes and COMMIT: one round trip when every one can be pipelined. */
  private async commitWith(deferred: readonly Statement[]): Promise<void> {
    const statements = [...(this.state === 'idle' ? this.beginStatements : []), ...deferred, { text: 'COMMIT', values: [] }];
    await this.connect();
    try {
      if (statements.every((statement) => canPipeline(this.connection, statement))) {
        await sendPipeline(this.connection, statements, this.types).catch((error: unknown) => {
          throw error instanceof PipelineError ? statementError(error.cause, statements[error.statementIndex].text) : error;
        });
        return;
      }
      await this.begin();
      for (const statement of deferred) {
        await send(this.connection, statement).catch((error: unknown) => {
          throw statementError(error, statement.text);
        });
      }
      await this.run('COMMIT');
    } catch (error) {
      // A deferred write failed (the transaction is aborted) or COMMIT did (it is over): either
      // way nothing committed, and ROLLBACK leaves the connection clean for the next transaction.
      await this.rollbackOrDrop();
      throw error;
    }
  }

  /** ROLLBACK; a connection that cannot roll back must serve nobody else. */
  private async rollbackOrDrop(): Promise<void> {
    try {
      await this.run('ROLLBACK');
    } catch {
      // Ending it makes knex's pool drop it (knex watches each connection's 'end'), and the error
      // that led here is what the caller reports.
      await this.connection.end().catch(() => undefined);
    }
  }

  /** BEGIN and a statement with values in one round trip. */
  private async pipelinedWithBegin(statement: Statement): Promise<QueryResult> {
    try {
      const results = await sendPipeline(this.connection, [...this.beginStatements, statement], this.types);
      return results[results.length - 1];
    } catch (error) {
      throw error instanceof PipelineError ? error.cause : error;
    }
  }

  /** A statement without values rides on BEGIN as one simple-protocol message: `begin;<statement>`. */
  private async textWithBegin(sql: string): Promise<QueryResult | QueryResult[]> {
    try {
      const results = (await this.connection.query(`${this.beginSql};${sql}`)) as unknown as QueryResult[];
      // BEGIN may be more than one statement (a pooler's statement limit follows it).
      const begun = this.beginStatements.length;
      return results.length === begun + 1 ? results[begun] : results.slice(begun);
    } catch (error) {
      shiftPosition(error, this.beginSql.length + 1);
      throw error;
    }
  }

  /** BEGIN on its own, for what cannot carry it. */
  private async begin(): Promise<void> {
    if (this.state === 'open') return;
    if (this.state === 'aborted') throw inFailedTransaction();
    await this.connect();
    await this.withBegin(() => this.run(this.beginSql));
  }
}

/** A savepoint of a pinned transaction: what MikroORM holds as the context of a nested transaction. */
export class PinnedSavepoint {
  constructor(
    readonly transaction: PinnedTransaction,
    readonly name: string,
  ) {}

  get client(): PinnedKnexClient {
    return this.transaction.client;
  }

  async release(): Promise<void> {
    this.transaction.releaseSavepoint(this.name);
  }

  async rollback(): Promise<void> {
    await this.transaction.rollbackToSavepoint(this.name);
  }
}
