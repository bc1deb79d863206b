import { listenOnChannel, type ChannelListener, type Logger } from '@mrp/platform';
import { ROUTES_CHANGED_CHANNEL, type RouteCache } from './route-cache';

export interface RouteChangeListenerOptions {
  databaseUrl: string;
  logger: Logger;
  caches: ReadonlyArray<RouteCache<unknown>>;
  reconnectDelayMs?: number;
}

/**
 * Keeps the process's route caches true: each forgets an organization's routes when a change to
 * them is announced, and all of them stop answering from memory whenever the connection that
 * hears the announcements is down (they load on every call until it is back).
 */
export function listenForRouteChanges({ databaseUrl, logger, caches, reconnectDelayMs }: RouteChangeListenerOptions): Promise<ChannelListener> {
  return listenOnChannel({
    databaseUrl,
    channel: ROUTES_CHANGED_CHANNEL,
    purpose: 'event route',
    logger,
    onNotification: (payload) => {
      for (const cache of caches) cache.forget(payload === '' ? null : payload);
    },
    onListening: () => {
      for (const cache of caches) cache.setLive(true);
    },
    onLost: () => {
      for (const cache of caches) cache.setLive(false);
    },
    reconnectDelayMs,
  });
}
