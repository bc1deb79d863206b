import { useCallback, useEffect, useState } from 'react';
import { useSignedIn } from '../session/session-context';
import type { NotificationPage } from './types';

/** Fired by whatever marks notifications read, so the bell's count follows at once. */
export const NOTIFICATIONS_CHANGED = 'console:notifications-changed';

/** How often the bell asks for new notifications while the console is open. */
const POLL_MS = 60_000;

/** The signed-in person's unread notification count, or undefined until first known. */
export function useUnreadCount(): number | undefined {
  const { rpc } = useSignedIn();
  const [count, setCount] = useState<number>();

  const read = useCallback(async () => {
    try {
      const page = await rpc.call<NotificationPage>('notifications.list', { unreadOnly: true, limit: 1 });
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
    const onChanged = () => void read();
    window.addEventListener(NOTIFICATIONS_CHANGED, onChanged);
    return () => {
      clearInterval(timer);
      window.removeEventListener(NOTIFICATIONS_CHANGED, onChanged);
    };
  }, [read]);

  return count;
}
