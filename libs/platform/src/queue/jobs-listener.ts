import { Client } from 'pg';
import type { Logger } from '../logging/logger';

export interface JobsListenerOptions {
  databaseUrl: string;
  channel: string;
  logger: Logger;
  /** A committed transaction queued jobs on the queue named by the payload. */
  onNotification(payload: string): void;
  /** The LISTEN is in place, first or again: whatever was sent while nobody listened is lost. */
  onListening(): void;
  reconnectDelayMs?: number;
}

export interface JobsListener {
  close(): Promise<void>;
}

/**
 * LISTENs on its own connection (outside the ORM's pool) for the notifications enqueuing
 * transactions send at commit. A dropped connection is re-opened after a delay until closed.
 */
export async function listenForJobs(options: JobsListenerOptions): Promise<JobsListener> {
  const { logger } = options;
  if (!/^[a-z_]+$/.test(options.channel)) throw new Error(`Invalid channel name ${options.channel}`);
  let closed = false;
  let client: Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const reconnectSoon = (): void => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch((error: unknown) => {
        logger.warn({ error: (error as Error).message }, 'job listener could not reconnect');
        reconnectSoon();
      });
    }, options.reconnectDelayMs ?? 1000);
  };

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: options.databaseUrl, application_name: 'jobs-listener' });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      if (closed) return;
      logger.warn({ error: error?.message }, 'job listener lost its connection; reconnecting');
      next.end().catch(() => undefined);
      reconnectSoon();
    };
    next.on('notification', (message) => options.onNotification(message.payload ?? ''));
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
    options.onListening();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
