import { TransactionEventBroadcaster, type EntityManager, type Transaction } from '@mikro-orm/postgresql';

/** Nothing managed, nothing queued: a flush would write nothing. */
function holdsNoEntities(em: EntityManager): boolean {
  const unitOfWork = em.getUnitOfWork(false);
  return (
    unitOfWork.getPersistStack().size === 0 &&
    unitOfWork.getRemoveStack().size === 0 &&
    unitOfWork.getOrphanRemoveStack().size === 0 &&
    unitOfWork.getIdentityMap()[Symbol.iterator]().next().done === true
  );
}

function hasSubscribers(em: EntityManager): boolean {
  return em.getEventManager().getSubscribers().size > 0;
}

/**
 * Whether `em.flush()` may have anything to do: not when no entity is managed or queued and no
 * subscriber is there to tell (a flush's events are the subscribers' only way to add work).
 * Procedures that write with SQL alone, like records.create, then pay nothing for the unit of work.
 */
export function needsFlush(em: EntityManager): boolean {
  return !holdsNoEntities(em) || hasSubscribers(em);
}

/** `em.flush()`, skipped when it provably has nothing to do (see `needsFlush`). */
export async function flushIfNeeded(em: EntityManager): Promise<void> {
  if (needsFlush(em)) await em.flush();
}

/**
 * Runs `work` on the context inside `transaction` (a transaction or a savepoint it opened): flushed
 * and committed on success, keeping what the work loaded managed by the context; rolled back and
 * the context emptied on failure. The context's own transaction, if any, is its again after.
 */
async function runWithin<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>, transaction: Transaction, events?: TransactionEventBroadcaster): Promise<T> {
  const connection = em.getConnection('write');
  const outer = em.getTransactionContext<Transaction>();
  em.setTransactionContext(transaction);
  try {
    const result = await work(em);
    if (needsFlush(em)) await em.flush();
    await connection.commit(transaction, events);
    return result;
  } catch (error) {
    await connection.rollback(transaction, events);
    em.clear();
    throw error;
  } finally {
    // Not resetTransactionContext(): its `delete` turns the context object into a slow dictionary.
    em.setTransactionContext(outer);
  }
}

/**
 * `em.transactional(work)` for the common case of a context that holds nothing, without its
 * per-call machinery: the same transaction, flush, commit or rollback and transaction events, but
 * no fork, no entity merge and no AsyncLocalStorage context (that context only serves code
 * reaching for the global EntityManager, which `allowGlobalContext: false` forbids anyway).
 *
 * The context is used directly because it holds nothing yet: on success it keeps what the work
 * loaded, as MikroORM's merge would give it; on failure it is cleared back to empty. A context
 * already in a transaction (a procedure called from inside another, such as an automation run's
 * action) gets a savepoint of it, which the driver sends with the next statement; MikroORM's nested
 * flow cost more than the savepoint (decision 163). A context that holds entities, or a nested call
 * with subscribers to tell, goes through `em.transactional` itself, so MikroORM's behaviour is kept
 * exactly wherever the shortcut would differ.
 */
export async function runInTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  if (em.config.get('disableTransactions') || !holdsNoEntities(em)) return em.transactional(work);
  const connection = em.getConnection('write');
  if (em.isInTransaction()) {
    if (hasSubscribers(em)) return em.transactional(work);
    return runWithin(em, work, await connection.begin({ ctx: em.getTransactionContext<Transaction>() }));
  }
  const events = hasSubscribers(em) ? new TransactionEventBroadcaster(em, undefined, { topLevelTransaction: true }) : undefined;
  return runWithin(em, work, await connection.begin({ eventBroadcaster: events }), events);
}
