import type { EntityManager } from '@mikro-orm/postgresql';
import type { KnexPool, PooledConnection } from './pinned-transaction';

/**
 * Keeps a request's pooled connection between its statements, so that a request makes one take
 * from the pool instead of one per statement: the connection of an autocommit statement that
 * succeeded is parked here, and the next statement (autocommit, or the transaction's first) takes
 * it back. An API request's key lookup and its record read or write thus share one connection.
 *
 * Every take from a busy pool waits behind the other requests' takes; one take per request is
 * one wait per request, which is what keeps the tail of the latency short under load.
 *
 * A parked connection serves nobody else, so a hold lasts only while the request works on the
 * database: `end` gives the parked connection back, and the request must call it before it waits
 * for anything slower (a body the client has not sent yet) and when it is done.
 */
export class ConnectionHold {
  private parked?: PooledConnection;
  private ended = false;

  constructor(private readonly pool: KnexPool) {}

  /** The parked connection if there is one (it leaves the hold), else one from the pool. */
  take(): Promise<PooledConnection> {
    const parked = this.parked;
    if (parked === undefined) return this.pool.acquireConnection();
    this.parked = undefined;
    return Promise.resolve(parked);
  }

  /**
   * After an autocommit statement: keeps its connection for the request's next statement, or gives
   * it back to the pool when the statement failed (the connection may be why), the hold has ended
   * or already keeps one.
   */
  async park(connection: PooledConnection, statementSucceeded: boolean): Promise<void> {
    if (!statementSucceeded || this.ended || this.parked !== undefined) {
      await this.pool.releaseConnection(connection);
      return;
    }
    this.parked = connection;
  }

  /** Gives the parked connection back; from now on every statement takes from the pool and gives back. */
  async end(): Promise<void> {
    this.ended = true;
    const parked = this.parked;
    this.parked = undefined;
    if (parked !== undefined) await this.pool.releaseConnection(parked);
  }

  /** The pool a transaction of this request uses: its first take is the parked connection. */
  forTransaction(): KnexPool {
    return {
      acquireConnection: () => this.take(),
      releaseConnection: (connection) => this.pool.releaseConnection(connection),
    };
  }
}

const holds = new WeakMap<EntityManager, ConnectionHold>();

/** The hold of a request's ORM context, if it has one. */
export function connectionHoldOf(em: EntityManager): ConnectionHold | undefined {
  return holds.get(em);
}

/** Registers a hold for `em` (see `ConnectionHold`); the caller ends it. */
export function registerConnectionHold(em: EntityManager, hold: ConnectionHold): void {
  if (holds.has(em)) throw new Error('This ORM context already holds a connection');
  holds.set(em, hold);
}
