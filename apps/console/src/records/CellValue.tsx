import type { CSSProperties } from 'react';
import type { CellDisplay } from './cell-format';

const supported = new Map<string, boolean>();
/** A chip's colour as CSS takes it: hex colours and CSS colour names; another palette name gets the neutral chip. */
export function chipStyle(color: string | undefined): CSSProperties | undefined {
  if (!color) return undefined;
  let ok = supported.get(color);
  if (ok === undefined) {
    ok = typeof CSS === 'undefined' || typeof CSS.supports !== 'function' || CSS.supports('color', color);
    supported.set(color, ok);
  }
  return ok ? ({ '--chip-color': color } as CSSProperties) : undefined;
}

/** A cell's value as its type shows it; links open in a new tab so the grid stays where it is. */
export function CellValue({ display }: { display: CellDisplay }) {
  switch (display.kind) {
    case 'empty':
      return null;
    case 'boolean':
      return <input type="checkbox" className="cell-checkbox" checked={display.value} readOnly tabIndex={-1} aria-label={display.value ? 'Yes' : 'No'} onChange={() => undefined} onMouseDown={(event) => event.preventDefault()} />;
    case 'chips':
      return (
        <span className="chips">
          {display.chips.map((chip, index) => (
            <span key={index} className="chip" style={chipStyle(chip.color)}>
              {chip.label}
            </span>
          ))}
        </span>
      );
    case 'list':
      return (
        <span className="chips">
          {display.items.map((item, index) => (
            <span key={index} className="chip chip-plain">
              {item}
            </span>
          ))}
        </span>
      );
    case 'link':
      return (
        <a href={display.href} target="_blank" rel="noopener noreferrer" tabIndex={-1}>
          {display.text}
        </a>
      );
    default:
      return <>{display.text}</>;
  }
}
