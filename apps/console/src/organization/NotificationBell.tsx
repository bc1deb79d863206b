import { Link } from '../app/router';
import { useUnreadCount } from './use-unread-count';

/** The top bar's way to the inbox, with the unread count. */
export function NotificationBell({ current }: { current: boolean }) {
  const unread = useUnreadCount();
  const label = unread ? `Notifications, ${unread} unread` : 'Notifications';
  return (
    <Link to="/inbox" className="bell" aria-label={label} title={label} aria-current={current ? 'page' : undefined}>
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M18 8a6 6 0 1 0-12 0c0 7-3 9-3 9h18s-3-2-3-9" />
        <path d="M13.7 21a2 2 0 0 1-3.4 0" />
      </svg>
      {unread ? (
        <span className="bell-count" aria-hidden="true">
          {unread > 99 ? '99+' : unread}
        </span>
      ) : null}
    </Link>
  );
}
