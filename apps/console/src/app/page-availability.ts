import { useEffect, useState } from 'react';
import type { RpcClient } from '../api/rpc-client';
import type { PageDefinition } from './pages';

/** The feature flags that are on (`featureFlags.enabled`, open to anyone signed in). */
async function enabledFlags(rpc: RpcClient): Promise<ReadonlySet<string>> {
  const { items } = await rpc.call<{ items: string[] }>('featureFlags.enabled', {});
  return new Set(items);
}

export function permitted(page: PageDefinition, permissions: ReadonlySet<string>): boolean {
  return !page.requires?.permission || permissions.has(page.requires.permission);
}

/**
 * The pages the active organization offers: those whose permission it grants and whose feature
 * flag is on. Undefined while the flags are asked.
 */
export function useAvailablePages(
  pages: PageDefinition[],
  rpc: RpcClient,
  organizationId: string | null,
  permissions: ReadonlySet<string>,
): PageDefinition[] | undefined {
  const [available, setAvailable] = useState<PageDefinition[]>();
  useEffect(() => {
    let current = true;
    setAvailable(undefined);
    // One question for every flag, asked only when a page the person may see depends on one.
    const flags = pages.some((page) => page.requires?.flag && permitted(page, permissions)) ? enabledFlags(rpc).catch(() => new Set<string>()) : Promise.resolve(new Set<string>());
    void flags.then((on) => {
      if (current) setAvailable(pages.filter((page) => permitted(page, permissions) && (!page.requires?.flag || on.has(page.requires.flag))));
    });
    return () => {
      current = false;
    };
  }, [pages, rpc, organizationId, permissions]);
  return available;
}
