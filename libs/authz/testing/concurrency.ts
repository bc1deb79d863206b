import { Client } from 'pg';
import type { Orm } from '@mrp/platform';

/**
 * A transaction on its own connection, outside every ORM context. Tests take row locks in it to
 * stop a procedure at a chosen statement, start a concurrent one, then let the first go on.
 */
export interface HeldTransaction {
  query(sql: string, params?: unknown[]): Promise<void>;
  commit(): Promise<void>;
  /** Rolls back and closes, unless already ended; safe in `finally`. */
  rollback(): Promise<void>;
}

export async function holdTransaction(databaseUrl: string): Promise<HeldTransaction> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  let open = true;
  const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
    if (!open) return;
    open = false;
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  return {
    async query(sql, params = []) {
      await client.query(sql, params);
    },
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
  };
}

/** Resolves once `count` sessions of the test database are waiting for a lock; fails after `timeoutMs`. */
export async function waitForLockWaiters(orm: Orm, count: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em
      .fork()
      .execute<Array<{ waiting: number }>>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
    if (row.waiting >= count) return;
    if (Date.now() > deadline) throw new Error(`expected ${count} sessions waiting for a lock, saw ${row.waiting}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export type Settled<T> = { value: T; error?: undefined } | { value?: undefined; error: unknown };

/** A call started now and inspected later: never rejects, so no rejection goes unhandled meanwhile. */
export function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}
