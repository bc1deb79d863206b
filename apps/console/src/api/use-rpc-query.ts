import { useCallback, useEffect, useRef, useState } from 'react';
import { useSession } from '../session/session-context';
import type { ProcedureInput, ProcedureOutput, TypedProcedure, UntypedProcedure } from './rpc-client';

export interface RpcQuery<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Calls again, keeping the current data on screen meanwhile. */
  reload(): Promise<void>;
}

export interface RpcQueryOptions {
  enabled?: boolean;
}

/**
 * Calls a read procedure when mounted and whenever `procedure`, `input` (compared as JSON) or the
 * active organization change. An answer that arrives after a newer call started is dropped.
 */
export function useRpcQuery<Name extends TypedProcedure>(procedure: Name, input?: ProcedureInput<Name>, options?: RpcQueryOptions): RpcQuery<ProcedureOutput<Name>>;
export function useRpcQuery<T, Name extends string = string>(procedure: UntypedProcedure<Name>, input?: unknown, options?: RpcQueryOptions): RpcQuery<T>;
export function useRpcQuery<T>(procedure: string, input: unknown = {}, { enabled = true }: RpcQueryOptions = {}): RpcQuery<T> {
  const { rpc, state } = useSession();
  const organizationId = state.status === 'signed-in' ? state.organizationId : null;
  const inputKey = JSON.stringify(input);
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(enabled);
  const latest = useRef(0);

  const run = useCallback(async () => {
    const call = ++latest.current;
    setLoading(true);
    try {
      const answer = await rpc.call<T>(procedure as UntypedProcedure<string>, JSON.parse(inputKey));
      if (call !== latest.current) return;
      setData(answer);
      setError(undefined);
    } catch (failure) {
      if (call !== latest.current) return;
      setError(failure);
    } finally {
      if (call === latest.current) setLoading(false);
    }
  }, [rpc, procedure, inputKey]);

  useEffect(() => {
    if (!enabled) return;
    void run();
  }, [run, enabled, organizationId]);

  return { data, error, loading, reload: run };
}
