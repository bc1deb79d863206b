import { silentLogger } from '@mrp/platform/testing';
import type { Logger } from '@mrp/platform';
import { createWakeNotifier } from './wake-notifier';

function notifierWith(send: () => Promise<void>, logger: Logger = silentLogger) {
  return createWakeNotifier({ send, minIntervalMs: 10, purpose: 'webhook delivery', logger });
}

describe('createWakeNotifier', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('wakes at once after a quiet spell, and coalesces a burst into one more wake-up at the end of the interval', async () => {
    let sent = 0;
    const notifier = notifierWith(async () => void sent++);
    notifier.wake();
    expect(sent).toBe(1);
    for (let i = 0; i < 50; i++) notifier.wake();
    expect(sent).toBe(1);
    jest.advanceTimersByTime(9);
    expect(sent).toBe(1);
    jest.advanceTimersByTime(1);
    expect(sent).toBe(2);
    // Nothing asked since: no further wake-up.
    jest.advanceTimersByTime(100);
    expect(sent).toBe(2);
    // Quiet for longer than the interval: the next one goes at once again.
    notifier.wake();
    expect(sent).toBe(3);
    await notifier.close();
  });

  it('logs a failed send and keeps waking', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_fields: unknown, message: string) => void warnings.push(message) } as unknown as Logger;
    let attempts = 0;
    const notifier = notifierWith(async () => {
      attempts++;
      throw new Error('connection refused');
    }, logger);
    notifier.wake();
    await jest.advanceTimersByTimeAsync(20);
    notifier.wake();
    await jest.advanceTimersByTimeAsync(0);
    expect(attempts).toBe(2);
    expect(warnings).toEqual([
      'could not wake the webhook delivery workers; their poll will find the work',
      'could not wake the webhook delivery workers; their poll will find the work',
    ]);
    await notifier.close();
  });

  it('drops the pending wake-up on close and waits for the one being sent', async () => {
    let sent = 0;
    let finish: () => void = () => undefined;
    const notifier = notifierWith(() => new Promise<void>((resolve) => (finish = () => resolve(void sent++))));
    notifier.wake();
    notifier.wake();
    let closed = false;
    const closing = notifier.close().then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(50);
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(sent).toBe(1);
    notifier.wake();
    await jest.advanceTimersByTimeAsync(50);
    expect(sent).toBe(1);
  });
});
