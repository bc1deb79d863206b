import { useMemo } from 'react';
import { useRpcQuery } from '../api/use-rpc-query';
import { useSignedIn } from '../session/session-context';

/** The event catalog's types as the server serves them (`webhooks.eventTypes.list`); empty while loading. */
export function useEventTypes(): { types: string[]; known: ReadonlySet<string>; error: unknown } {
  const query = useRpcQuery('webhooks.eventTypes.list');
  return useMemo(() => {
    const types = (query.data?.items ?? []).map((item) => item.type);
    return { types, known: new Set(types), error: query.error };
  }, [query.data, query.error]);
}

/** The organization's model keys, when the session may read models (else none: pickers then take typed keys). */
export function useModelKeys(): string[] {
  const { permissions } = useSignedIn();
  const query = useRpcQuery('dataModels.list', {}, { enabled: permissions.has('data-models.read') });
  return useMemo(() => (query.data?.items ?? []).map((model) => model.key), [query.data]);
}
