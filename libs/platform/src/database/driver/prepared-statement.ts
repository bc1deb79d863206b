import { createHash } from 'node:crypto';

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
