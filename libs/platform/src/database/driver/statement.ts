import { Query, type Client, type CustomTypesConfig, type QueryArrayConfig, type QueryResult } from 'pg';
import type { BindValue } from './parameterized-sql';

/** A pooled `pg` connection as knex's pool hands it out. */
export type PooledConnection = Client;

/** A statement as it goes out: text with `$n` placeholders, its values, and a name when PostgreSQL keeps it prepared. */
export interface Statement {
  readonly text: string;
  readonly values: readonly BindValue[];
  readonly name?: string;
  /**
   * Takes the rows one at a time as they arrive, each as its values in column order and as
   * PostgreSQL wrote them (text, no type parsing), instead of the result keeping them: a large
   * result then never lives whole in memory. Its result has no rows.
   */
  readonly onRow?: RowHandler;
}

/** A row of a streamed statement: its values in column order, as text; null for NULL. */
export type RowHandler = (values: ReadonlyArray<string | null>) => void;

/**
 * A streamed statement's row handler threw: the statement and its connection are fine (the answer
 * was read to its end), and the handler's own error (`cause`) is what the caller gets back.
 */
export class RowHandlerError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'RowHandlerError';
  }
}

/** Every value as the text PostgreSQL sent: a streamed row's consumer knows its columns. */
const RAW_TEXT = { getTypeParser: () => (text: string) => text } as unknown as CustomTypesConfig;

/**
 * Runs a statement whose rows go to `statement.onRow` as they arrive, through pg's public Query
 * with a row listener (pg keeps no rows then). A handler that throws stops nothing mid-stream
 * (pg's parser must read the whole answer): its first error fails the statement at its end.
 */
function sendStreamed(connection: PooledConnection, statement: Statement & { onRow: RowHandler }): Promise<QueryResult> {
  const config: QueryArrayConfig = { text: statement.text, values: statement.values as unknown[], rowMode: 'array', types: RAW_TEXT };
  const query = new Query<Array<string | null>>(config);
  let failure: { error: unknown } | undefined;
  return new Promise<QueryResult>((resolve, reject) => {
    query.on('row', (values: Array<string | null>) => {
      if (failure) return;
      try {
        statement.onRow(values);
      } catch (error) {
        failure = { error: new RowHandlerError(error) };
      }
    });
    query.on('error', reject);
    query.on('end', (result) => (failure ? reject(failure.error) : resolve(result as unknown as QueryResult)));
    connection.query(query);
  });
}

/**
 * The prepared statements known to be parsed on each connection: added once a named statement ran
 * through `send` (pg parses it on first use), never guessed. A pipeline binds such a statement
 * without parsing it; one not known here is not pipelined, so no connection sees a name parsed twice.
 */
const parsedOn = new WeakMap<PooledConnection, Set<string>>();

/** Whether `statement` can travel in a pipeline on `connection`: unnamed, or a prepared statement already parsed there. */
export function canPipeline(connection: PooledConnection, statement: Statement): boolean {
  return !statement.name || parsedOn.get(connection)?.has(statement.name) === true;
}

/** Runs one statement through pg's public `query`: named (prepared), with values, or plain text. */
export async function send(connection: PooledConnection, statement: Statement): Promise<QueryResult> {
  if (statement.onRow) {
    if (statement.name) throw new Error('A streamed statement is never a prepared one');
    return sendStreamed(connection, { ...statement, onRow: statement.onRow });
  }
  const values = statement.values as unknown[];
  if (statement.name) {
    const result = await connection.query({ name: statement.name, text: statement.text, values });
    let names = parsedOn.get(connection);
    if (!names) parsedOn.set(connection, (names = new Set()));
    names.add(statement.name);
    return result;
  }
  if (values.length > 0) return connection.query(statement.text, values);
  return connection.query(statement.text);
}
