import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const NAVIGATED = 'console:navigated';

/** Moves to `path` inside the console without reloading the page. */
export function navigate(path: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** Re-reads `read()` on navigate() and on the browser's back and forward. */
function useLocationPart(read: () => string): string {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, [read]);
  return value;
}

const readPath = () => location.pathname;
const readSearch = () => location.search;

/** The current path; re-renders on navigate() and on the browser's back and forward. */
export function useCurrentPath(): string {
  return useLocationPart(readPath);
}

/** The current query string (`''` or `?a=b`); re-renders like useCurrentPath. */
export function useCurrentSearch(): string {
  return useLocationPart(readSearch);
}

/**
 * Sets the query string of the current path. `replace` for state that changes as one types (no
 * history entry per key); a push for a change one may want to go back from.
 */
export function setSearch(search: string, { replace = false } = {}): void {
  const query = search === '' || search.startsWith('?') ? search : `?${search}`;
  if (query === location.search) return;
  navigate(`${location.pathname}${query}${location.hash}`, { replace });
}

/**
 * Matches `/models/:key/records` against a path: the decoded parameters, or null. Trailing
 * slashes are ignored; segments are compared exactly.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const split = (value: string) => value.split('/').filter(Boolean);
  const patternParts = split(pattern);
  const pathParts = split(path);
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of patternParts.entries()) {
    const actual = pathParts[index] as string;
    if (part.startsWith(':')) {
      try {
        params[part.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (part !== actual) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

/** An ordinary link (it opens in a new tab as any link does) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handleClick} {...rest} />;
}
