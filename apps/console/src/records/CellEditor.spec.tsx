import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DataField } from '../data-models/types';
import CellEditor from './CellEditor';

const field = (key: string, type: DataField['type'], config: Record<string, unknown> = {}): DataField => ({
  key,
  name: key,
  type,
  config,
  required: false,
  position: 1,
  indexed: false,
  indexStatus: null,
  indexError: null,
  archivedAt: null,
});

describe('a cell editor', () => {
  afterEach(cleanup);

  it('commits with Enter (down) and Tab (right), and commits again after a refusal in the same words', async () => {
    const user = userEvent.setup();
    const onCommit = vi.fn();
    const onCancel = vi.fn();
    const props = { field: field('amount', 'NUMBER'), label: 'Amount of A', initial: '5', shown: 5, busy: false, onCommit, onCancel };
    const { rerender } = render(<CellEditor {...props} />);
    const input = screen.getByRole('textbox', { name: 'Amount of A' });
    expect(document.activeElement).toBe(input);
    await user.keyboard('1.234{Enter}');
    expect(onCommit).toHaveBeenLastCalledWith('1.234', undefined, 'down');

    rerender(<CellEditor {...props} initial="1.234" error="Must have at most 2 decimal places." />);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('alert').textContent).toBe('Must have at most 2 decimal places.');
    await user.keyboard('5{Enter}');
    expect(onCommit).toHaveBeenLastCalledWith('1.2345', undefined, 'down');
    rerender(<CellEditor {...props} initial="1.2345" error="Must have at most 2 decimal places." />);
    await user.clear(input);
    await user.keyboard('1.5{Tab}');
    expect(onCommit).toHaveBeenLastCalledWith('1.5', undefined, 'right');
    expect(onCommit).toHaveBeenCalledTimes(3);
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('cancels with Escape, sending nothing', async () => {
    const user = userEvent.setup();
    const onCommit = vi.fn();
    const onCancel = vi.fn();
    render(<CellEditor field={field('name', 'TEXT')} label="Name of A" initial="Ada" shown="Ada" busy={false} onCommit={onCommit} onCancel={onCancel} />);
    await user.keyboard('x{Escape}');
    expect(onCancel).toHaveBeenCalledTimes(1);
    expect(onCommit).not.toHaveBeenCalled();
  });

  it('lists a select field options: the arrows move, Enter chooses; a multiple select toggles with Space', async () => {
    const user = userEvent.setup();
    const onCommit = vi.fn();
    const options = { options: [{ value: 'lead', label: 'Lead', color: 'blue' }, { value: 'won', label: 'Won' }] };
    render(<CellEditor field={field('stage', 'SELECT', options)} label="Stage of A" initial="lead" shown="lead" busy={false} onCommit={onCommit} onCancel={vi.fn()} />);
    const list = screen.getByRole('listbox', { name: 'Stage of A' });
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['No value', 'Lead', 'Won']);
    expect(list.getAttribute('aria-activedescendant')).toBe(screen.getByRole('option', { name: 'Lead' }).id);
    await user.keyboard('{ArrowDown}{Enter}');
    expect(onCommit).toHaveBeenLastCalledWith('won', undefined, 'down');
    cleanup();

    render(<CellEditor field={field('tags', 'MULTI_SELECT', options)} label="Tags of A" initial={['won']} shown={['won']} busy={false} onCommit={onCommit} onCancel={vi.fn()} />);
    // The active option starts at the first chosen one (Won); Lead is above it.
    await user.keyboard('{ArrowUp} {Enter}');
    expect(onCommit).toHaveBeenLastCalledWith(['lead', 'won'], undefined, 'down');
  });
});
