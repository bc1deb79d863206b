import type { Client, QueryResult } from 'pg';
import type { BindValue } from './parameterized-sql';

/** A pooled `pg` connection as knex's pool hands it out. */
export type PooledConnection = Client;

/** A statement as it goes out: text with `$n` placeholders, its values, and a name when PostgreSQL keeps it prepared. */
export interface Statement {
  readonly text: string;
  readonly values: readonly BindValue[];
  readonly name?: string;
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
