const CONTROL = 'input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled])';

/**
 * Moves the focus to the first input marked invalid in `form` (document order is form order),
 * after React has rendered the errors. A marked group (a fieldset) gives it to its first control.
 */
export function focusFirstInvalid(form: HTMLElement | null): void {
  requestAnimationFrame(() => {
    const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!invalid) return;
    const target = invalid.matches(CONTROL) ? invalid : invalid.querySelector<HTMLElement>(CONTROL);
    target?.focus();
  });
}
