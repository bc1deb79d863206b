import { useCallback, useEffect, useState, type RefObject } from 'react';

const CONTROL = 'input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled])';

/**
 * Focuses the first input marked invalid in `form` (document order is form order); a marked
 * group (a fieldset) gives the focus to its first control.
 */
export function focusFirstInvalid(form: HTMLElement | null): void {
  const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (!invalid) return;
  const target = invalid.matches(CONTROL) ? invalid : invalid.querySelector<HTMLElement>(CONTROL);
  target?.focus();
}

/**
 * `request()` after setting a form's errors: once React has rendered them (and re-enabled what
 * a pending save disabled), the focus moves to the first invalid input.
 */
export function useFocusFirstInvalid(form: RefObject<HTMLElement | null>): () => void {
  const [requests, setRequests] = useState(0);
  useEffect(() => {
    if (requests > 0) focusFirstInvalid(form.current);
  }, [requests, form]);
  return useCallback(() => setRequests((count) => count + 1), []);
}
