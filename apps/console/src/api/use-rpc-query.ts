import { useCallback, useEffect, useRef, useState } from 'react';
import { useSession } from '../session/session-context';
import type { ProcedureInput, ProcedureOutput, TypedProcedure } from './rpc-client';

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

/** The input, left out only where the procedure's input may be (as for `call`), then the options. */
export type RpcQueryArgs<Name extends TypedProcedure> =
  Record<string, never> extends ProcedureInput<Name>
    ? [input?: ProcedureInput<Name>, options?: RpcQueryOptions]
    : [input: ProcedureInput<Name>, options?: RpcQueryOptions];

/**
 * Calls a read procedure when mounted and whenever `procedure`, `input` (compared as JSON) or the
 * active organization change. An answer that arrives after a newer call started is dropped.
 */
export function useRpcQuery<Name extends TypedProcedure>(procedure: Name, ...args: RpcQueryArgs<Name>): RpcQuery<ProcedureOutput<Name>> {
  // Both forms of the arguments are one tuple at run time; the name's own type chose which.
  const [input = {}, { enabled = true } = {}] = args as [input?: ProcedureInput<Name>, options?: RpcQueryOptions];
  const { rpc, state } = useSession();
  const organizationId = state.status === 'signed-in' ? state.organizationId : null;
  const inputKey = JSON.stringify(input);
  const [data, setData] = useState<ProcedureOutput<Name>>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(enabled);
  const latest = useRef(0);

  const run = useCallback(async () => {
    const call = ++latest.current;
    setLoading(true);
    try {
      const answer = await rpc.call(procedure, ...[JSON.parse(inputKey) as ProcedureInput<Name>]);
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
