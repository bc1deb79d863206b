import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { createRpcClient } from './rpc-client';
import { useKeysetPages } from './use-keyset-pages';

const sent: Array<{ procedure: string; input: unknown }> = [];
const pages: Record<string, { items: Array<{ id: string }>; nextCursor: string | null }> = {
  first: { items: [{ id: 'run-3' }, { id: 'run-2' }], nextCursor: 'run-2' },
  'run-2': { items: [{ id: 'run-1' }], nextCursor: null },
};
const rpc = createRpcClient({
  credentials: () => null,
  fetch: (async (url: string, init: RequestInit) => {
    const input = JSON.parse(init.body as string) as { cursor?: string };
    sent.push({ procedure: decodeURIComponent(url.slice('/rpc/'.length)), input });
    return new Response(JSON.stringify(pages[input.cursor ?? 'first']), { status: 200, headers: { 'Content-Type': 'application/json' } });
  }) as unknown as typeof fetch,
});
vi.mock('../session/session-context', () => ({ useSignedIn: () => ({ rpc }) }));

describe('useKeysetPages', () => {
  it("asks for the first page with the input as given, then each further one with the last page's cursor, appended", async () => {
    const input = { automationId: 'a1', limit: 2 };
    const { result } = renderHook(() => useKeysetPages('automations.runs.list', input));
    await waitFor(() => expect(result.current.items.map((run) => run.id)).toEqual(['run-3', 'run-2']));
    expect(result.current.hasMore).toBe(true);

    await act(() => result.current.loadMore());
    expect(result.current.items.map((run) => run.id)).toEqual(['run-3', 'run-2', 'run-1']);
    expect(result.current.hasMore).toBe(false);
    expect(sent).toEqual([
      { procedure: 'automations.runs.list', input: { automationId: 'a1', limit: 2 } },
      { procedure: 'automations.runs.list', input: { automationId: 'a1', limit: 2, cursor: 'run-2' } },
    ]);
  });
});
