import { Client } from 'pg';
import type { Logger } from '../logging/logger';

export interface ChannelListenerOptions {
  databaseUrl: string;
  /** The NOTIFY channel. */
  channel: string;
  /** What is listened for, in log lines: "webhook delivery", "event route". */
  purpose: string;
  logger: Logger;
  /** Every notification, with its payload. */
  onNotification(payload: string): void;
  /** The LISTEN is in place, first or again: whatever was sent while nobody listened is lost. */
  onListening(): void;
  /** The connection was lost; nothing is heard until the next onListening. */
  onLost?(): void;
  reconnectDelayMs?: number;
}

export interface ChannelListener {
  close(): Promise<void>;
}

/**
 * LISTENs on its own connection (outside the ORM's pool) for the notifications transactions send
 * at commit. A dropped connection is re-opened after a delay, for as long as the listener is open.
 */
export async function listenOnChannel(options: ChannelListenerOptions): Promise<ChannelListener> {
  const { logger, purpose } = options;
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
        logger.warn({ err: error }, `${purpose} listener could not reconnect`);
        reconnectSoon();
      });
    }, options.reconnectDelayMs ?? 1000);
  };

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: options.databaseUrl });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      options.onLost?.();
      if (closed) return;
      logger.warn({ err: error }, `${purpose} listener lost its connection; reconnecting`);
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
      options.onLost?.();
      await current?.end().catch(() => undefined);
    },
  };
}
