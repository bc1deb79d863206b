import { Query, type QueryResult } from 'pg';
import type { PooledConnection, Statement } from './pinned-transaction';

/**
 * The one place that reaches into `pg`'s internals (its public API has no pipelining): BEGIN and
 * a statement with values sent as one extended-protocol pipeline, one write and one Sync, the
 * twin of the simple protocol's `begin;<statement>`. It saves a transaction's BEGIN round trip;
 * docs/benchmarks.md has what that buys, and begin-pipeline.spec.ts fails on a `pg` upgrade that
 * changes what this relies on:
 * - pg calls `prepare(connection)` from `Query.submit`, with the socket corked, to write a query
 *   that needs the extended protocol;
 * - `connection.parsedStatements` maps a prepared statement's name to the text parsed on that
 *   connection, and pg fills it on ParseComplete for a query that has a name;
 * - `_getRows(connection, rows)` writes Execute and Sync;
 * - a query answering several CommandCompletes resolves with one result per statement.
 */

interface WireConnection {
  parsedStatements: Record<string, string>;
  parse(message: { text: string; name: string }): void;
  bind(message: { portal: string; statement: string; values: readonly unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
  describe(message: { type: 'P'; name: string }): void;
}

interface QueryInternals {
  name?: string;
  text: string;
  values: unknown[];
  portal: string;
  rows?: number;
  _getRows(connection: WireConnection, rows?: number): void;
}

/**
 * Messages: [Parse the named statement, unless this connection has it], Parse/Bind/Execute BEGIN,
 * [Parse the unnamed statement], Bind/Describe/Execute the statement, Sync. A named statement is
 * parsed before BEGIN so that pg records it as parsed only when it really was; an unnamed one
 * after BEGIN's Bind, as BEGIN itself occupies the unnamed statement until then.
 */
class BeginThenStatement extends Query {
  constructor(
    private readonly beginSql: string,
    statement: Statement,
  ) {
    // Named or with values: pg's Query takes the extended protocol and so calls `prepare`.
    super({ name: statement.name, text: statement.text, values: [...statement.values] });
  }

  prepare(connection: WireConnection): void {
    const query = this as unknown as QueryInternals;
    const statementName = query.name ?? '';
    if (statementName && connection.parsedStatements[statementName] !== query.text) connection.parse({ text: query.text, name: statementName });
    connection.parse({ text: this.beginSql, name: '' });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    if (!statementName) connection.parse({ text: query.text, name: '' });
    connection.bind({ portal: query.portal, statement: statementName, values: query.values });
    connection.describe({ type: 'P', name: query.portal });
    query._getRows(connection, query.rows);
  }
}

/** BEGIN and `statement` in one round trip; resolves with the statement's result. */
export function beginThenStatement(connection: PooledConnection, beginSql: string, statement: Statement): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new BeginThenStatement(beginSql, statement);
    query.on('end', (results: unknown) => resolve((results as QueryResult[])[1]));
    query.on('error', reject);
    connection.query(query);
  });
}
