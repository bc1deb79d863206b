import { useCallback, useEffect, useState } from 'react';
import { formatDateTime } from '../app/format';
import { EmptyState } from '../components/EmptyState';
import { ErrorNotice } from '../components/ErrorNotice';
import { NOTIFICATIONS_ARRIVED, NOTIFICATIONS_CHANGED } from '../organization/use-unread-count';
import type { InboxNotification } from '../organization/types';
import { useSignedIn } from '../session/session-context';

const PAGE_SIZE = 25;

/** Your notifications (roles given, invitations accepted, automations' messages), newest first. */
export default function InboxPage() {
  const { rpc } = useSignedIn();
  const [items, setItems] = useState<InboxNotification[]>();
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [unread, setUnread] = useState(0);
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const load = useCallback(
    async (cursor?: string) => {
      setBusy(true);
      setError(undefined);
      try {
        const page = await rpc.call('notifications.list', { unreadOnly, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) });
        setItems((current) => (cursor ? [...(current ?? []), ...page.items] : page.items));
        setNextCursor(page.nextCursor);
        setUnread(page.unreadCount);
      } catch (failure) {
        setError(failure);
      } finally {
        setBusy(false);
      }
    },
    [rpc, unreadOnly],
  );

  useEffect(() => {
    void load();
    // The bell saw new ones come: list them at the top, as a reload would.
    const onArrived = () => void load();
    window.addEventListener(NOTIFICATIONS_ARRIVED, onArrived);
    return () => window.removeEventListener(NOTIFICATIONS_ARRIVED, onArrived);
  }, [load]);

  const markRead = async (input: { ids: string[] } | { all: true }) => {
    setError(undefined);
    try {
      await rpc.call('notifications.markRead', input);
      const readAt = new Date().toISOString();
      const marked = 'all' in input ? null : new Set(input.ids);
      setItems((current) => current?.map((item) => (item.readAt === null && (!marked || marked.has(item.id)) ? { ...item, readAt } : item)));
      setUnread((count) => ('all' in input ? 0 : Math.max(0, count - input.ids.length)));
      window.dispatchEvent(new Event(NOTIFICATIONS_CHANGED));
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Notifications</h1>
        <div className="button-row">
          <label className="choice">
            <input type="checkbox" checked={unreadOnly} onChange={(event) => setUnreadOnly(event.target.checked)} />
            Unread only
          </label>
          <button type="button" className="button" disabled={unread === 0} onClick={() => void markRead({ all: true })}>
            Mark all as read
          </button>
        </div>
      </div>
      <p className="page-intro" role="status">
        {unread === 0 ? 'Nothing unread.' : `${unread} unread.`}
      </p>
      <ErrorNotice error={error} />
      {items && items.length === 0 ? (
        <EmptyState title={unreadOnly ? 'No unread notifications' : 'No notifications yet'}>
          You are told here when someone gives you a role, accepts your invitation, or an automation notifies you.
        </EmptyState>
      ) : null}
      {items && items.length > 0 ? (
        <ul className="inbox" aria-label="Notifications">
          {items.map((item) => (
            <li key={item.id} className={item.readAt ? 'inbox-item' : 'inbox-item inbox-item-unread'}>
              <div className="inbox-text">
                <p className="inbox-title">
                  {item.readAt ? null : <span className="visually-hidden">Unread: </span>}
                  {item.title}
                </p>
                {item.body ? <p className="inbox-body">{item.body}</p> : null}
                <p className="notice-meta">{formatDateTime(item.createdAt)}</p>
              </div>
              {item.readAt ? null : (
                <button type="button" className="button button-small" onClick={() => void markRead({ ids: [item.id] })} aria-label={`Mark “${item.title}” as read`}>
                  Mark as read
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {!items && busy ? <p role="status">Loading…</p> : null}
      {nextCursor ? (
        <button type="button" className="button" disabled={busy} onClick={() => void load(nextCursor)}>
          {busy ? 'Loading…' : 'Show older'}
        </button>
      ) : null}
    </section>
  );
}
