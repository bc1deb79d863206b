/**
 * Keyset paging through `records.list`: the server only gives the cursor of the next page, so the
 * cursors of the pages already seen are kept to go back. `cursors[i]` starts page i + 1; the
 * first page has none.
 */
export interface Paging {
  cursors: Array<string | undefined>;
}

export const FIRST_PAGE: Paging = { cursors: [undefined] };

export function currentCursor(paging: Paging): string | undefined {
  return paging.cursors[paging.cursors.length - 1];
}

export function pageNumber(paging: Paging): number {
  return paging.cursors.length;
}

export function nextPage(paging: Paging, nextCursor: string): Paging {
  return { cursors: [...paging.cursors, nextCursor] };
}

export function previousPage(paging: Paging): Paging {
  return paging.cursors.length > 1 ? { cursors: paging.cursors.slice(0, -1) } : paging;
}
