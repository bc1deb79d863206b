import { listenOnChannel, type Logger } from '@mrp/platform';

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
 * Wakes a worker: on the NOTIFY a queueing transaction sends at commit, so queued work starts
 * within milliseconds of the change; on a poll, so nothing waits longer than the poll interval
 * when a notification is lost; and whenever the LISTEN is (re)established.
 */
export async function listenForWakeSignals(options: WakeSignalsOptions): Promise<WakeSignals> {
  const { onDue } = options;
  const listener = await listenOnChannel({
    databaseUrl: options.databaseUrl,
    channel: options.channel,
    purpose: options.purpose,
    logger: options.logger,
    onNotification: () => onDue(),
    // What was queued while nobody listened.
    onListening: () => onDue(),
    reconnectDelayMs: options.reconnectDelayMs,
  });
  const poll = setInterval(onDue, options.pollIntervalMs ?? 5000);
  return {
    async close() {
      clearInterval(poll);
      await listener.close();
    },
  };
}
