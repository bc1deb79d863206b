import type { Logger } from '../logging/logger';

/** Lost connections within this long of the last one are the same incident (a restart, a failover). */
const INCIDENT_QUIET_MS = 10_000;

/** What knex's `log` option takes: where its own messages go instead of the console. */
export interface KnexLog {
  warn(message: string): void;
  error(message: string): void;
  deprecate(method: string, alternative: string): void;
  debug(message: string): void;
}

/** knex's words for a connection that ended without an error: the driver ended it (after a cancel). */
const ENDED_ON_PURPOSE = 'Connection ended unexpectedly';

/**
 * knex's messages as JSON log lines of the `database` component. Its "Connection Error" (the pool
 * found a connection ended and replaces it) is said once per incident, not once per connection,
 * as a database restart ends every connection at once; and not at all for a connection the
 * driver ended itself (one nobody may reuse after a cancel), which is no news.
 */
export function knexLog(logger: Logger, now: () => number = Date.now): KnexLog {
  const log = logger.child({ component: 'database' });
  let lastLostAt = Number.NEGATIVE_INFINITY;
  return {
    warn(message) {
      if (!message.startsWith('Connection Error:')) {
        log.warn(message);
        return;
      }
      const detail = message.slice('Connection Error: '.length);
      if (detail === ENDED_ON_PURPOSE) return;
      const at = now();
      if (at - lastLostAt > INCIDENT_QUIET_MS) log.warn({ detail }, 'database connections were lost; the pool opens new ones');
      lastLostAt = at;
    },
    error: (message) => log.error(message),
    deprecate: (method, alternative) => log.warn(`${method} is deprecated; use ${alternative}`),
    debug: (message) => log.debug(message),
  };
}
