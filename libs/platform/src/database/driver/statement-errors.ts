import { RowHandlerError } from './statement';

/**
 * What a failed statement may tell whoever logs it: the statement's text (placeholders, never
 * values), PostgreSQL's error code and a message that quotes no value. PostgreSQL puts values in
 * an error's `detail` ("Key (email)=(a@b.c) already exists", "Failing row contains (...)"), in
 * its `where` (the JSON text that did not parse) and, for data exceptions, in the message itself
 * (`invalid input syntax for type uuid: "..."`). Those are dropped before the error leaves the
 * driver, so no log line, whatever logs it, can carry a value.
 */

/** The fields of a PostgreSQL error (pg's DatabaseError) that can quote a value. */
const VALUE_FIELDS = ['detail', 'where', 'hint', 'internalQuery', 'internalPosition'] as const;

/** SQLSTATE classes whose primary message may quote a value: data exceptions, what routines raise. */
const VALUE_BEARING_CLASSES = new Set(['22', '38', '39', 'P0']);

interface PostgresErrorFields {
  code?: unknown;
  severity?: unknown;
}

function sqlState(error: Error & PostgresErrorFields): string | undefined {
  // pg's errors carry a SQLSTATE and a severity; network errors carry codes like ECONNRESET and no severity.
  return typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) && typeof error.severity === 'string' ? error.code : undefined;
}

/**
 * Whether a connection a statement failed on must not serve another: only an ERROR the server
 * reported about the statement leaves the session usable. A FATAL one (a terminated backend, a
 * shutdown) or a failure with no SQLSTATE (the socket ended, was reset) means the connection is
 * dead, though the pool may not have heard of it yet when it is handed back.
 */
export function leavesConnectionUnusable(error: unknown): boolean {
  if (error instanceof RowHandlerError) return false;
  if (typeof error !== 'object' || error === null) return true;
  const fields = error as Error & PostgresErrorFields;
  return sqlState(fields) === undefined || fields.severity !== 'ERROR';
}

/** PostgreSQL's message, unless it may quote a value: then what it is about, and its SQLSTATE. */
function safeMessage(message: string, code: string): string {
  if (!VALUE_BEARING_CLASSES.has(code.slice(0, 2))) return message;
  if (!/["':]/.test(message)) return message; // "division by zero", "integer out of range"
  const subject = /^(invalid input syntax for type [\w ]+?)(?=:)/.exec(message)?.[1];
  return `${subject ?? 'invalid data'} (SQLSTATE ${code})`;
}

/**
 * Makes `error` safe to log and names the statement it came from: the message becomes
 * `<statement text> - <message>` (knex's convention, which MikroORM's exceptions keep) and the
 * stack's first line follows it, as the stack holds the original message too.
 */
export function statementError(error: unknown, statementText: string): unknown {
  if (!(error instanceof Error)) return error;
  const fields = error as Error & PostgresErrorFields & Record<string, unknown>;
  const code = sqlState(fields);
  const original = error.message;
  const message = code === undefined ? original : safeMessage(original, code);
  if (code !== undefined) for (const field of VALUE_FIELDS) delete fields[field];
  error.message = `${statementText} - ${message}`;
  if (typeof error.stack === 'string') {
    const frames = error.stack.split('\n').filter((line) => line.trimStart().startsWith('at '));
    error.stack = [`${error.name}: ${error.message}`, ...frames].join('\n');
  }
  return error;
}
