import { useId, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSignedIn } from '../session/session-context';

/** The organizations the person belongs to (from `me.get`); choosing one makes it the active one. */
export function OrganizationSwitcher() {
  const { me, organizationId, switchOrganization } = useSignedIn();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const id = useId();

  const change = async (next: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await switchOrganization(next);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="org-switcher">
      <label htmlFor={id}>Organization</label>
      <select id={id} value={organizationId ?? ''} disabled={busy} onChange={(event) => void change(event.target.value)}>
        {me.organizations.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </select>
      <ErrorNotice error={error} />
    </div>
  );
}
