import { createHash } from 'node:crypto';
import { Query, type QueryResult } from 'pg';
import type { PooledConnection } from './pinned-transaction';

/**
 * How a prepared statement must reach its rows. PostgreSQL plans a prepared statement once per
 * connection and may keep a generic plan, built from whatever the statistics said then (a table
 * that was empty when last analysed, before a burst of writes): every hot statement must find its
 * rows through these indexes whatever the statistics say, which a test checks for each one.
 */
export interface IntendedPlan {
  /** What the statement does, in a few words ("record by id, live"). */
  readonly purpose: string;
  /** Every index the plan may read, and the only ones; no table is read by a sequential scan. */
  readonly indexes: readonly string[];
}

/**
 * A statement PostgreSQL parses and plans once per connection, then only binds and executes: for
 * the few statements where planning costs as much as running (an INSERT ... SELECT ... RETURNING
 * plans in about the time it takes to execute). Text uses `$1`, `$2`... placeholders.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
  readonly plan: IntendedPlan;
}

/** Bound as text, typed by the statement (write `$1::uuid`): no guessing from JavaScript types. */
export type PreparedValue = string | number | boolean | null;

const defined = new Map<string, PreparedStatement>();

export function preparedStatement(text: string, plan: IntendedPlan): PreparedStatement {
  // Named after the text, so one name never means two statements on a connection.
  const statement = { name: `mrp_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`, text, plan };
  defined.set(statement.name, statement);
  return statement;
}

/** Every prepared statement defined by the modules loaded so far. */
export function definedPreparedStatements(): PreparedStatement[] {
  return [...defined.values()];
}

export function bindValues(values: readonly PreparedValue[]): Array<string | null> {
  return values.map((value) => (value === null ? null : String(value)));
}

/** The protocol messages pg's Query writes; its typings leave them out. */
interface WireConnection {
  parsedStatements: Record<string, string>;
  parse(message: { text: string; name: string }): void;
  bind(message: { portal: string; statement: string; values: ReadonlyArray<string | null> }): void;
  execute(message: { portal: string; rows: number }): void;
  describe(message: { type: 'P'; name: string }): void;
}

interface QueryInternals {
  name: string;
  text: string;
  values: Array<string | null>;
  portal: string;
  rows?: number;
  _getRows(connection: WireConnection, rows?: number): void;
}

/**
 * A named statement preceded, in the same pipeline (one write, one Sync), by the transaction's
 * BEGIN: the extended-protocol twin of `begin;<statement>`. Messages: [Parse statement, unless
 * this connection has it], Parse/Bind/Execute BEGIN, Bind/Describe/Execute statement, Sync. The
 * statement is parsed before BEGIN so that pg records it as parsed only when it really was.
 * Answers with two results, BEGIN's and the statement's, as a multi-statement query would.
 */
class BeginThenExecute extends Query {
  constructor(
    private readonly beginSql: string,
    statement: PreparedStatement,
    values: Array<string | null>,
  ) {
    super({ name: statement.name, text: statement.text, values });
  }

  /** Called by pg's Query.submit in place of its own prepare, with the stream corked. */
  prepare(connection: WireConnection): void {
    const query = this as unknown as QueryInternals;
    if (connection.parsedStatements[query.name] !== query.text) connection.parse({ text: query.text, name: query.name });
    connection.parse({ text: this.beginSql, name: '' });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    connection.bind({ portal: query.portal, statement: query.name, values: query.values });
    connection.describe({ type: 'P', name: query.portal });
    query._getRows(connection, query.rows);
  }
}

/** Runs BEGIN and a prepared statement in one round trip; resolves with [BEGIN's result, the statement's]. */
export function beginThenExecute(
  connection: PooledConnection,
  beginSql: string,
  statement: PreparedStatement,
  values: Array<string | null>,
): Promise<QueryResult[]> {
  return new Promise((resolve, reject) => {
    const query = new BeginThenExecute(beginSql, statement, values);
    query.on('end', (results: unknown) => resolve(results as QueryResult[]));
    query.on('error', reject);
    connection.query(query);
  });
}
