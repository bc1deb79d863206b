import type { EntityManager } from '@mikro-orm/postgresql';
import { DirectPgConnection, type SessionQuery } from './driver/direct-pg-driver';

/**
 * Runs `work` on one pooled connection of its own, outside any transaction the context may be
 * in: for what needs one session (session advisory locks, CREATE INDEX CONCURRENTLY). `run` takes
 * SQL with `?` placeholders, as `em.execute` does, and binds the values.
 */
export async function withSession<T>(em: EntityManager, work: (run: SessionQuery) => Promise<T>): Promise<T> {
  const connection = em.getConnection();
  if (!(connection instanceof DirectPgConnection)) throw new Error('withSession needs the ORM of createOrm (its DirectPgDriver)');
  return connection.withSession(work);
}
