import { useEffect, useRef, useState } from 'react';
import type { RpcClient } from '../api/rpc-client';
import type { PageDefinition } from './pages';

/** The feature flags that are on (`featureFlags.enabled`, open to anyone signed in). */
async function enabledFlags(rpc: RpcClient): Promise<ReadonlySet<string>> {
  const { items } = await rpc.call('featureFlags.enabled', {});
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
  const askedFor = useRef<string | null | undefined>(undefined);
  // A session refresh (after saving one's name, say) brings an equal set of permissions in a new
  // Set: asked again only when they differ, so the page on screen is not unmounted for nothing.
  const permissionKey = [...permissions].sort().join(' ');
  useEffect(() => {
    let current = true;
    const granted = new Set(permissionKey.split(' '));
    // Another organization's pages are not shown while this one's are asked.
    if (askedFor.current !== organizationId) setAvailable(undefined);
    askedFor.current = organizationId;
    // One question for every flag, asked only when a page the person may see depends on one.
    const flags = pages.some((page) => page.requires?.flag && permitted(page, granted)) ? enabledFlags(rpc).catch(() => new Set<string>()) : Promise.resolve(new Set<string>());
    void flags.then((on) => {
      if (current) setAvailable(pages.filter((page) => permitted(page, granted) && (!page.requires?.flag || on.has(page.requires.flag))));
    });
    return () => {
      current = false;
    };
  }, [pages, rpc, organizationId, permissionKey]);
  return available;
}
