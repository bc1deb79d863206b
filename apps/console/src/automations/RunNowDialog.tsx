import { useState, type FormEvent } from 'react';
import type { Automation } from '../api/automation-types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextAreaField } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { parseJsonObject } from './action-form';
import { FormFooter } from '../components/FormFooter';

/** Queues a run now (`automations.run`), with an optional JSON object as its input. */
export function RunNowDialog({ automation, open, onClose }: { automation: Automation; open: boolean; onClose: (runId?: string) => void }) {
  const { rpc } = useSignedIn();
  const [input, setInput] = useState('');
  const [inputError, setInputError] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const close = (runId?: string) => {
    setInputError(undefined);
    setError(undefined);
    onClose(runId);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = input.trim() === '' ? { value: undefined } : parseJsonObject(input);
    if ('error' in parsed) return setInputError(parsed.error);
    setInputError(undefined);
    setBusy(true);
    setError(undefined);
    try {
      const { runId } = await rpc.call('automations.run', { id: automation.id, ...(parsed.value ? { input: parsed.value } : {}) });
      close(runId);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={`Run “${automation.name}” now`}
      onClose={() => close()}
      busy={busy}
      footer={<FormFooter formId="run-now-form" busy={busy} onCancel={() => close()} label="Run now" busyLabel="Queuing…" />}
    >
      <form id="run-now-form" onSubmit={(event) => void submit(event)} noValidate>
        <p>The run is queued at once, whatever the trigger, and acts as the automation’s owner.</p>
        <ErrorNotice error={error} />
        <TextAreaField
          label="Input (optional)"
          hint={<>A JSON object its templates read as <code>{'{{input.x}}'}</code>, e.g. <code>{'{ "ref": "A-1" }'}</code>.</>}
          value={input}
          onChange={setInput}
          error={inputError}
          rows={4}
          spellCheck={false}
          className="code"
          data-autofocus
        />
      </form>
    </Dialog>
  );
}
