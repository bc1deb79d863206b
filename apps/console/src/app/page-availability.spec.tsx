import { lazy } from 'react';
import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { RpcClient } from '../api/rpc-client';
import type { PageDefinition } from './pages';
import { useAvailablePages } from './page-availability';

const component = lazy(async () => ({ default: () => null }));
const PAGES: PageDefinition[] = [
  { path: '/home', title: 'Home', component },
  { path: '/boards', title: 'Boards', component, requires: { permission: 'views.read', flag: 'kanban' } },
];

/** The server's featureFlags.enabled, counted. */
function flagsServer(): RpcClient & { asked: number } {
  const server = {
    asked: 0,
    async call<T>(): Promise<T> {
      server.asked++;
      return { items: ['kanban'] } as T;
    },
  };
  return server;
}

describe('useAvailablePages', () => {
  it('keeps the pages through a session refresh that brings the same permissions in a new Set, and asks again for another organization', async () => {
    const rpc = flagsServer();
    const { result, rerender } = renderHook(({ organization, permissions }) => useAvailablePages(PAGES, rpc, organization, permissions), {
      initialProps: { organization: 'one', permissions: new Set(['views.read']) },
    });
    await waitFor(() => expect(result.current?.map((page) => page.path)).toEqual(['/home', '/boards']));
    expect(rpc.asked).toBe(1);

    // A refresh: equal permissions, a new Set. The page on screen must not go back to "Loading…".
    rerender({ organization: 'one', permissions: new Set(['views.read']) });
    expect(result.current?.map((page) => page.path)).toEqual(['/home', '/boards']);
    expect(rpc.asked).toBe(1);

    // Another organization: nothing of the first is shown while its flags are asked.
    rerender({ organization: 'two', permissions: new Set(['views.read']) });
    expect(result.current).toBeUndefined();
    await waitFor(() => expect(result.current?.map((page) => page.path)).toEqual(['/home', '/boards']));
    expect(rpc.asked).toBe(2);

    // Fewer permissions in the same organization: the pages follow.
    rerender({ organization: 'two', permissions: new Set<string>() });
    await waitFor(() => expect(result.current?.map((page) => page.path)).toEqual(['/home']));
  });
});
