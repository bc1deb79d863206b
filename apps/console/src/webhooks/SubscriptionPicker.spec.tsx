import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { SubscriptionPicker } from './SubscriptionPicker';

afterEach(cleanup);

const TYPES = ['data-models.record-created', 'data-models.record-deleted', 'rbac.role-created'];

function Harness({ initial = [] as string[], models = ['orders'] }) {
  const [value, setValue] = useState(initial);
  return (
    <>
      <SubscriptionPicker types={TYPES} models={models} value={value} onChange={setValue} />
      <output data-testid="value">{value.join(' ')}</output>
    </>
  );
}

const chosen = () => screen.getByTestId('value').textContent;
/** The checkbox whose label's pattern is exactly `pattern`. */
function box(pattern: string): HTMLInputElement {
  const found = screen.getAllByRole('checkbox').filter((element) => (element as HTMLInputElement).labels?.[0]?.querySelector('code')?.textContent === pattern);
  expect(found).toHaveLength(1);
  return found[0] as HTMLInputElement;
}

describe('the subscription picker', () => {
  it('offers the catalog by module, a module’s prefix, one model’s record events and everything', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByText('rbac'));
    await user.click(box('rbac.role-created'));
    await user.click(screen.getByText('One model’s records'));
    await user.click(box('data-models.orders.record-created'));
    expect(chosen()).toBe('rbac.role-created data-models.orders.record-created');
    expect(screen.getByRole('group', { name: 'Events' }).textContent).toContain('Chosen: rbac.role-created, data-models.orders.record-created');
  });

  it('folds what a chosen prefix covers into it, and shows those types ticked but not choosable', async () => {
    const user = userEvent.setup();
    render(<Harness initial={['data-models.record-created', 'data-models.orders.record-deleted', 'rbac.role-created']} />);
    await user.click(screen.getByText('data-models'));
    await user.click(box('data-models.*'));
    expect(chosen()).toBe('rbac.role-created data-models.*');
    expect(box('data-models.record-deleted').checked).toBe(true);
    expect(box('data-models.record-deleted').disabled).toBe(true);

    await user.click(box('*'));
    expect(chosen()).toBe('*');
    expect(box('rbac.role-created').disabled).toBe(true);
    await user.click(box('*'));
    expect(chosen()).toBe('');
    expect(box('rbac.role-created').disabled).toBe(false);
  });

  it('takes a pattern typed by hand when the server would, and says why not otherwise', async () => {
    const user = userEvent.setup();
    render(<Harness models={[]} />);
    const input = screen.getByRole('textbox', { name: 'Another pattern' });
    await user.type(input, 'rbac.role-creatd{Enter}');
    expect(screen.getByText('"rbac.role-creatd" is not an event type of the catalog, a prefix ending in .* or *')).toBeTruthy();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(chosen()).toBe('');

    await user.clear(input);
    await user.type(input, 'data-models.invoices.*');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(chosen()).toBe('data-models.invoices.*');
    expect((input as HTMLInputElement).value).toBe('');
    // Listed with the others, so it can be taken out again.
    await user.click(box('data-models.invoices.*'));
    expect(chosen()).toBe('');
  });
});
