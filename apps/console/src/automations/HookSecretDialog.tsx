import type { AutomationWithSecret } from '../api/automation-types';
import { Dialog } from '../components/Dialog';
import { SecretOnce } from '../components/SecretOnce';

/** An http automation's hook secret, shown once, with the URL programs call. */
export function HookSecretDialog({ automation, onClose }: { automation: AutomationWithSecret | undefined; onClose: () => void }) {
  const hookUrl = automation ? `${location.origin}/hooks/automation/${automation.id}` : '';
  return (
    <Dialog open={automation?.secret !== undefined} title="Your automation’s hook secret" onClose={onClose} footer={<button type="button" className="button button-primary" onClick={onClose}>Done</button>}>
      <SecretOnce label={`Hook secret of “${automation?.name ?? ''}”`} secret={automation?.secret ?? ''} copyLabel="Copy secret">
        Programs send it as <code>Authorization: Bearer …</code>.
      </SecretOnce>
      <p className="field-hint">
        Hook URL: <code className="url">POST {hookUrl}</code>
      </p>
    </Dialog>
  );
}
