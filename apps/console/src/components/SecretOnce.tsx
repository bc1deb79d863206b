import { useEffect, useRef, type ReactNode } from 'react';
import { CopyButton } from './CopyButton';

/** A secret the server returns once (a signing or hook secret): read-only, selected on focus, with a copy button. */
export function SecretOnce({ label, secret, copyLabel, children }: { label: string; secret: string; copyLabel: string; children?: ReactNode }) {
  const field = useRef<HTMLInputElement>(null);
  // The form that asked for it is gone: focus goes to the secret, which is what to read and copy.
  useEffect(() => field.current?.focus(), []);
  return (
    <>
      <p className="notice notice-warning" role="status">
        Copy this secret now: <strong>you will not see it again.</strong> {children}
      </p>
      <div className="field">
        <label htmlFor="shown-secret">{label}</label>
        <input ref={field} id="shown-secret" className="token" readOnly value={secret} data-autofocus onFocus={(event) => event.target.select()} />
      </div>
      <CopyButton text={secret} label={copyLabel} />
    </>
  );
}
