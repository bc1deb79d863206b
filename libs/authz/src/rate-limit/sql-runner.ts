import type { Pool } from 'pg';
import type { Orm } from '@mrp/platform';

/** The limiter runs on the ORM's pool or on a plain `pg` pool; never inside a request's transaction. */
export type RateLimitDatabase = Orm | Pool;

export type SqlRunner = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

/** Runs `?`-placeholder SQL (knex style) on either kind of database handle, as autocommit statements. */
export function sqlRunnerFor(database: RateLimitDatabase): SqlRunner {
  if ('em' in database) {
    const connection = database.em.getConnection();
    return <Row>(sql: string, params: unknown[]) => connection.execute<Row[]>(sql, params);
  }
  return async <Row>(sql: string, params: unknown[]) => {
    let position = 0;
    const text = sql.replace(/\?/g, () => `$${++position}`);
    const result = await database.query(text, params);
    return result.rows as Row[];
  };
}
