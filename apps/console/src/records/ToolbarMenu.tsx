import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A toolbar button that opens a panel below it (a disclosure: `<details>`), closed again by Escape
 * or a click elsewhere, as menus are.
 */
export function ToolbarMenu({ label, className, active = false, children }: { label: string; className?: string; active?: boolean; children: ReactNode }) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const close = (event: Event) => {
      const details = ref.current;
      if (!details?.open) return;
      if (event instanceof KeyboardEvent) {
        if (event.key !== 'Escape' || !details.contains(document.activeElement)) return;
        details.open = false;
        details.querySelector('summary')?.focus();
      } else if (!details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
  return (
    <details ref={ref} className={`toolbar-menu${className ? ` ${className}` : ''}`}>
      <summary className={`button button-small${active ? ' button-active' : ''}`}>{label}</summary>
      <div className="toolbar-popover">{children}</div>
    </details>
  );
}
