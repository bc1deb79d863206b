import type { ReactNode } from 'react';

/**
 * What a page shows when it has nothing yet: what is missing, what to do about it, and the button
 * that does it (e.g. "No records yet" with "New record" and "Import a CSV").
 */
export function EmptyState({ title, children, actions }: { title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="empty-state" role="status">
      <p className="empty-state-title">{title}</p>
      {children ? <p>{children}</p> : null}
      {actions ? <div className="button-row">{actions}</div> : null}
    </div>
  );
}
