import { useState } from 'react';

/** Copies `text` to the clipboard and says so; says how to copy by hand where the browser refuses. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome('copied');
    } catch {
      setOutcome('failed');
    }
  };
  return (
    <>
      <button type="button" className="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="copy-status">
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Copying was refused by the browser: select the text and copy it' : ''}
      </span>
    </>
  );
}
