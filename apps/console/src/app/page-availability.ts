import { useEffect, useState } from 'react';
import type { RpcClient } from '../api/rpc-client';
import { isRpcError } from '../api/rpc-error';
import type { PageDefinition } from './pages';

/**
 * Whether the server serves `procedure`: a procedure behind a flag that is off answers
 * `not_found` before anything else, so a call with an empty input tells. Any other answer,
 * success or refusal of the input, means it exists.
 */
export async function procedureServed(rpc: RpcClient, procedure: string): Promise<boolean> {
  try {
    await rpc.call(procedure, {});
    return true;
  } catch (error) {
    return !(isRpcError(error) && error.status === 404 && error.code === 'not_found');
  }
}

export function permitted(page: PageDefinition, permissions: ReadonlySet<string>): boolean {
  return !page.requires?.permission || permissions.has(page.requires.permission);
}

/**
 * The pages the active organization offers: those whose permission it grants and whose
 * procedure the server serves. Undefined while the probes run.
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
    // One probe per procedure, however many pages name it.
    const probes = new Map<string, Promise<boolean>>();
    const served = (procedure: string) => {
      if (!probes.has(procedure)) probes.set(procedure, procedureServed(rpc, procedure));
      return probes.get(procedure) as Promise<boolean>;
    };
    void Promise.all(
      pages.map(async (page) => {
        if (!permitted(page, permissions)) return false;
        return page.requires?.procedure ? served(page.requires.procedure) : true;
      }),
    ).then((shown) => {
      if (current) setAvailable(pages.filter((_, index) => shown[index]));
    });
    return () => {
      current = false;
    };
  }, [pages, rpc, organizationId, permissions]);
  return available;
}
