import { useEffect, useState } from 'react';
import type { ViewStateHandle } from './view-state';

const SEARCH_DELAY_MS = 300;
const MAX_LENGTH = 200;

/** The quick search (`q`): titles and text, email and URL fields containing the words, any case, and the options whose label does (searchListInput). */
export function QuickSearch({ view, modelName }: { view: ViewStateHandle; modelName: string }) {
  const q = view.state.q ?? '';
  const [text, setText] = useState(q);
  // The address changed by itself (back, a saved view): show its search; a trailing space being typed stays.
  useEffect(() => setText((current) => (current.trim() === q ? current : q)), [q]);
  useEffect(() => {
    if (text.trim() === q) return;
    // Typing replaces the address rather than adding a history entry per key.
    const timer = setTimeout(() => view.update({ q: text.trim() || undefined }, { replace: true }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, q, view]);
  return (
    <input
      type="search"
      className="quick-search"
      aria-label={`Search ${modelName}`}
      placeholder="Search…"
      maxLength={MAX_LENGTH}
      value={text}
      onChange={(event) => setText(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') view.update({ q: text.trim() || undefined }, { replace: true });
      }}
    />
  );
}
