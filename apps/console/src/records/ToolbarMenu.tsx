import { createContext, useCallback, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';

interface ToolbarMenuHandle {
  /** Closes the panel and puts the focus back on its button, as a menu does once its work is done. */
  close(): void;
}

const ToolbarMenuContext = createContext<ToolbarMenuHandle>({ close: () => undefined });

/** The menu a panel sits in, for a panel that closes itself (a filter once applied). */
export const useToolbarMenu = () => useContext(ToolbarMenuContext);

/**
 * A toolbar button that opens a panel below it (a disclosure: `<details>`), closed again by Escape
 * or a click elsewhere, as menus are.
 */
export function ToolbarMenu({ label, className, active = false, children }: { label: string; className?: string; active?: boolean; children: ReactNode }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const close = useCallback(() => {
    const details = ref.current;
    if (!details?.open) return;
    // Focus left inside the closed panel would be lost; focus the reader moved elsewhere stays there.
    const focus = document.activeElement;
    const refocus = !focus || focus === document.body || details.contains(focus);
    details.open = false;
    if (refocus) details.querySelector('summary')?.focus();
  }, []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) close();
    };
    const onPointer = (event: PointerEvent) => {
      const details = ref.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [close]);
  const handle = useMemo(() => ({ close }), [close]);
  return (
    <details ref={ref} className={`toolbar-menu${className ? ` ${className}` : ''}`}>
      <summary className={`button button-small${active ? ' button-active' : ''}`}>{label}</summary>
      <ToolbarMenuContext.Provider value={handle}>
        <div className="toolbar-popover">{children}</div>
      </ToolbarMenuContext.Provider>
    </details>
  );
}
