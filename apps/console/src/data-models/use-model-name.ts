import { useRpcQuery } from '../api/use-rpc-query';


/**
 * A model's display name for pages that know only its key (boards, calendars), so a model is
 * called the same everywhere; the key stands in while the name loads or when it cannot be read.
 */
export function useModelName(key: string | undefined): string | undefined {
  const model = useRpcQuery('dataModels.get', { key: key ?? '' }, { enabled: key !== undefined });
  return model.data?.key === key && model.data ? model.data.name : key;
}
