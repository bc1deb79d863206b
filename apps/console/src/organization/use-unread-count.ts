import { useCallback, useEffect, useRef, useState } from 'react';
import { useSignedIn } from '../session/session-context';

/** Fired by whatever marks notifications read, so the bell's count follows at once. */
export const NOTIFICATIONS_CHANGED = 'console:notifications-changed';
/** Fired when the bell sees the unread count rise, so an open inbox lists what came. */
export const NOTIFICATIONS_ARRIVED = 'console:notifications-arrived';

/**
 * How often the bell asks while the tab is in view: a new notification shows within this, without
 * a reload. A hidden tab does not ask, and asks at once when it is shown again. One call reads the
 * count (`notifications.list`, one item, unread only), so this costs the server little.
 */
export const POLL_MS = 20_000;

/** The signed-in person's unread notification count, or undefined until first known. */
export function useUnreadCount(): number | undefined {
  const { rpc } = useSignedIn();
  const [count, setCount] = useState<number>();
  const known = useRef<number | undefined>(undefined);
  const latest = useRef(0);

  const read = useCallback(async () => {
    // Only the answer to the latest question counts: a poll sent before a mark-read and answered
    // after it would bring back the count from before.
    const asked = ++latest.current;
    try {
      const page = await rpc.call('notifications.list', { unreadOnly: true, limit: 1 });
      if (asked !== latest.current) return;
      if (known.current !== undefined && page.unreadCount > known.current) window.dispatchEvent(new Event(NOTIFICATIONS_ARRIVED));
      known.current = page.unreadCount;
      setCount(page.unreadCount);
    } catch {
      // The bell is a hint: a failed poll leaves the last count and the next one tries again.
    }
  }, [rpc]);

  useEffect(() => {
    void read();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void read();
    }, POLL_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void read();
    };
    const onChanged = () => void read();
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener(NOTIFICATIONS_CHANGED, onChanged);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener(NOTIFICATIONS_CHANGED, onChanged);
    };
  }, [read]);

  return count;
}
