import { Client } from 'pg';
import type { Logger } from '@mrp/platform';

export interface WakeSignalsOptions {
  databaseUrl: string;
  /** The NOTIFY channel; a notification means "work may be due now". */
  channel: string;
  /** What is listened for, in log lines: "webhook delivery", "automation run". */
  purpose: string;
  logger: Logger;
  /** Called on every signal: a committed change queued work, a poll tick, a reconnect. */
  onDue(): void;
  /** Polling catches retries coming due and anything a lost connection missed. */
  pollIntervalMs?: number;
  reconnectDelayMs?: number;
}

export interface WakeSignals {
  close(): Promise<void>;
}

/**
 * LISTENs on its own connection (outside the ORM's pool) for the NOTIFY a queueing transaction
 * sends at commit, so queued work starts within milliseconds of the change; and polls, so nothing
 * waits longer than the poll interval when a notification is lost. A dropped connection is re-opened.
 */
export async function listenForWakeSignals(options: WakeSignalsOptions): Promise<WakeSignals> {
  const { logger, onDue, purpose } = options;
  if (!/^[a-z_]+$/.test(options.channel)) throw new Error(`Invalid channel name ${options.channel}`);
  let closed = false;
  let client: Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;

  // One timer at a time, whichever of error, end or a failed connect asks first.
  const reconnectSoon = (): void => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch((error: unknown) => {
        logger.warn({ err: error }, `${purpose} listener could not reconnect; polling meanwhile`);
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
      logger.warn({ err: error }, `${purpose} listener lost its connection; reconnecting`);
      next.end().catch(() => undefined);
      reconnectSoon();
    };
    next.on('notification', () => onDue());
    next.on('error', lost);
    next.on('end', () => lost());
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${options.channel}`);
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
