import { describeError } from '../api/rpc-error';

/**
 * A failed call in plain words, with the request id support asks for. Announced to screen
 * readers as it appears (role="alert").
 */
export function ErrorNotice({ error, className }: { error: unknown; className?: string }) {
  if (error === undefined || error === null) return null;
  const { title, message, requestId, details } = describeError(error);
  return (
    <div role="alert" className={`notice notice-error ${className ?? ''}`}>
      <p className="notice-title">{title}</p>
      {message && message !== title ? <p>{message}</p> : null}
      {details.length > 0 ? (
        <ul>
          {details.map((detail, index) => (
            <li key={`${detail.field}-${index}`}>
              {detail.field === '(body)' ? '' : <strong>{detail.field}: </strong>}
              {detail.message}
            </li>
          ))}
        </ul>
      ) : null}
      {requestId ? (
        <p className="notice-meta">
          Request id for support: <code>{requestId}</code>
        </p>
      ) : null}
    </div>
  );
}
