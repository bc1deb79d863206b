import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcError } from '../api/rpc-error';
import { ConfirmDialog } from './ConfirmDialog';
import { Dialog } from './Dialog';
import { ErrorNotice } from './ErrorNotice';

afterEach(cleanup);

describe('ErrorNotice', () => {
  it('says what failed in plain words, lists the refused fields and quotes the request id', () => {
    const error = new RpcError({
      code: 'validation_failed',
      message: 'The request is invalid',
      status: 400,
      requestId: 'req-42',
      details: [{ field: 'name', code: 'required', message: 'must not be blank' }],
    });
    render(<ErrorNotice error={error} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Some values were refused');
    expect(alert.textContent).toContain('The request is invalid');
    expect(alert.textContent).toContain('name: must not be blank');
    expect(alert.textContent).toContain('Request id for support: req-42');
  });

  it('shows nothing without an error', () => {
    const { container } = render(<ErrorNotice error={undefined} />);
    expect(container.innerHTML).toBe('');
  });
});

function DialogHarness({ onConfirm = async () => undefined }: { onConfirm?: () => Promise<void> }) {
  const [open, setOpen] = useState<'plain' | 'confirm' | null>(null);
  return (
    <main id="main" tabIndex={-1}>
      <button type="button" onClick={() => setOpen('plain')}>
        Open
      </button>
      <button type="button" onClick={() => setOpen('confirm')}>
        Delete thing
      </button>
      <Dialog open={open === 'plain'} title="A dialog" onClose={() => setOpen(null)}>
        <label htmlFor="first">First</label>
        <input id="first" />
        <button type="button" onClick={() => setOpen(null)}>
          Close
        </button>
      </Dialog>
      <ConfirmDialog open={open === 'confirm'} title="Delete the thing?" confirmLabel="Delete" danger onConfirm={onConfirm} onClose={() => setOpen(null)}>
        <p>Gone for good.</p>
      </ConfirmDialog>
    </main>
  );
}

describe('Dialog', () => {
  it('moves the focus into the dialog when it opens and back to the opener when it closes', async () => {
    const user = userEvent.setup();
    render(<DialogHarness />);
    const opener = screen.getByRole('button', { name: 'Open' });
    await user.click(opener);
    expect(screen.getByRole('dialog', { name: 'A dialog' })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText('First'));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });
});

describe('ConfirmDialog', () => {
  it('focuses Cancel, so a stray Enter destroys nothing', async () => {
    const user = userEvent.setup();
    let confirmed = 0;
    render(<DialogHarness onConfirm={async () => void confirmed++} />);
    await user.click(screen.getByRole('button', { name: 'Delete thing' }));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Enter}');
    expect(confirmed).toBe(0);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('stays open and shows the failure when the action is refused', async () => {
    const user = userEvent.setup();
    const refusal = new RpcError({ code: 'forbidden', message: 'You may not', status: 403, requestId: 'req-9' });
    render(
      <DialogHarness
        onConfirm={async () => {
          throw refusal;
        }}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Delete thing' }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    expect(screen.getByRole('dialog', { name: 'Delete the thing?' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('You do not have permission to do this');
    expect(screen.getByRole('alert').textContent).toContain('req-9');
  });
});
