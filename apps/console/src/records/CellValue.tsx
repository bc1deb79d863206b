import type { CSSProperties } from 'react';
import type { CellDisplay } from './cell-format';

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
            <span key={index} className="chip" style={chip.color ? ({ '--chip-color': chip.color } as CSSProperties) : undefined}>
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
