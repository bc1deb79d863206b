/**
 * The per-model name an endpoint subscribed to, beside the general type a record event is
 * delivered under (the endpoint dialog explains why they differ). Several when the log cannot tell
 * which of the endpoint's models it was.
 */
export function SubscribedAs({ aliases }: { aliases: readonly string[] }) {
  if (aliases.length === 0) return null;
  return (
    <span className="choice-description subscribed-as">
      subscribed as{' '}
      {aliases.map((alias, index) => (
        <span key={alias}>
          {index > 0 ? ' or ' : null}
          <code>{alias}</code>
        </span>
      ))}
    </span>
  );
}
