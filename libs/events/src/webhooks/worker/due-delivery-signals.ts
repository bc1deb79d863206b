import { listenForWakeSignals, type WakeSignals, type WakeSignalsOptions } from '../../bus/wake-signals';
import { DELIVERIES_DUE_CHANNEL } from '../deliveries/delivery-wakeup';

/** Wakes a delivery worker when the outbox queued deliveries (and on every poll tick). */
export function listenForDueDeliveries(options: Omit<WakeSignalsOptions, 'channel' | 'purpose'>): Promise<WakeSignals> {
  return listenForWakeSignals({ ...options, channel: DELIVERIES_DUE_CHANNEL, purpose: 'webhook delivery' });
}
