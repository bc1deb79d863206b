import { Client } from 'pg';
import type { Logger } from '@mrp/platform';
import { DELIVERIES_DUE_CHANNEL } from '../deliveries/delivery-wakeup';

export interface DueDeliverySignalsOptions {
  databaseUrl: string;
  logger: Logger;
  /** Called on every signal: a committed change queued deliveries, a poll tick, a reconnect. */
  onDue(): void;
  /** Polling catches retries coming due and anything a lost connection missed. */
  pollIntervalMs?: number;
  reconnectDelayMs?: number;
}

export interface DueDeliverySignals {
  close(): Promise<void>;
}

/**
 * LISTENs on its own connection (outside the ORM's pool) for the NOTIFY the outbox sends at
 * commit, so a delivery goes out within milliseconds of the change; and polls, so nothing waits
 * longer than the poll interval when a notification is lost. A dropped connection is re-opened.
 */
export async function listenForDueDeliveries(options: DueDeliverySignalsOptions): Promise<DueDeliverySignals> {
  const { logger, onDue } = options;
  let closed = false;
  let client: Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;

  // One timer at a time, whichever of error, end or a failed connect asks first.
  const reconnectSoon = (): void => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch((error: unknown) => {
        logger.warn({ err: error }, 'webhook delivery listener could not reconnect; polling meanwhile');
        reconnectSoon();
      });
    }, options.reconnectDelayMs ?? 1000);
  };

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: options.databaseUrl });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      if (closed) return;
      logger.warn({ err: error }, 'webhook delivery listener lost its connection; reconnecting');
      next.end().catch(() => undefined);
      reconnectSoon();
    };
    next.on('notification', () => onDue());
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${DELIVERIES_DUE_CHANNEL}`);
    } catch (error) {
      client = undefined;
      await next.end().catch(() => undefined);
      throw error;
    }
    // What was queued while nobody listened.
    onDue();
  };

  await connect();
  const poll = setInterval(onDue, options.pollIntervalMs ?? 5000);
  return {
    async close() {
      closed = true;
      clearInterval(poll);
      clearTimeout(reconnectTimer);
      await client?.end().catch(() => undefined);
    },
  };
}
