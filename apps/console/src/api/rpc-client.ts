import type { AuthzProcedures } from '@mrp/authz/contracts';
import type { AutomationsProcedures } from '@mrp/automations/contracts';
import type { DataModelsProcedures } from '@mrp/data-models/contracts';
import type { EventsProcedures } from '@mrp/events/contracts';
import type { NotificationsProcedures } from '@mrp/notifications/contracts';
import type { ViewsProcedures } from '@mrp/views/contracts';
import { RpcError, type ErrorDetail } from './rpc-error';

/**
 * The procedures whose input and answer the console knows by name: the libs' contracts maps
 * (decision 155), types only. A name outside them fails the typecheck.
 */
export type ConsoleProcedures = DataModelsProcedures &
  AuthzProcedures &
  EventsProcedures &
  AutomationsProcedures &
  NotificationsProcedures &
  ViewsProcedures;
export type TypedProcedure = keyof ConsoleProcedures;
export type ProcedureInput<Name extends TypedProcedure> = ConsoleProcedures[Name]['input'];
export type ProcedureOutput<Name extends TypedProcedure> = ConsoleProcedures[Name]['output'];
/** The input may be left out (it is `{}` then) only where every property is optional. */
export type ProcedureInputArgs<Name extends TypedProcedure> =
  Record<string, never> extends ProcedureInput<Name> ? [input?: ProcedureInput<Name>] : [input: ProcedureInput<Name>];

export interface RpcCredentials {
  /** The session JWT of the identity provider (or of the development sign-in). */
  token: string;
  /** The active organization, sent as `X-Organization-Id`; null for user-scoped calls. */
  organizationId: string | null;
}

/** An answer with the version of what it shows (its `ETag`), for a later call's `expectedVersion`. */
export interface VersionedAnswer<T> {
  body: T;
  /** Undefined when the procedure answers no version. */
  version?: number;
}

export interface RpcClient {
  call<Name extends TypedProcedure>(procedure: Name, ...input: ProcedureInputArgs<Name>): Promise<ProcedureOutput<Name>>;
  /** `call` with the answer's version; optional so that stand-in clients (tests) need only `call`. */
  callVersioned?<Name extends TypedProcedure>(procedure: Name, ...input: ProcedureInputArgs<Name>): Promise<VersionedAnswer<ProcedureOutput<Name>>>;
}

/** The resource's own version in an entity tag `"<version>-<variant>"`. */
export function versionOfEntityTag(tag: string | null): number | undefined {
  const match = tag ? /^"(\d+)-/.exec(tag) : null;
  return match ? Number(match[1]) : undefined;
}

export interface RpcClientOptions {
  credentials: () => RpcCredentials | null;
  /** Told when the server answers 401, so the console can sign the person out. */
  onUnauthorized?: (error: RpcError) => void;
  fetch?: typeof fetch;
  /** Where the api is; the console is served by it, so the default is the page's own origin. */
  baseUrl?: string;
  newRequestId?: () => string;
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function detailsFrom(value: unknown): ErrorDetail[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (detail): detail is ErrorDetail =>
      typeof detail === 'object' && detail !== null && typeof detail.field === 'string' && typeof detail.message === 'string',
  );
}

/**
 * `POST /rpc/{procedure}` with the session: the console's only door to the platform. Each call
 * carries its own `X-Request-Id`, which the server adopts, so even a call that got no answer has
 * an id to quote.
 */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const newRequestId = options.newRequestId ?? (() => crypto.randomUUID());
  const baseUrl = options.baseUrl ?? '';

  async function send<T>(procedure: string, input: unknown): Promise<VersionedAnswer<T>> {
    const requestId = newRequestId();
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Request-Id': requestId };
    const credentials = options.credentials();
    if (credentials) {
      headers.Authorization = `Bearer ${credentials.token}`;
      if (credentials.organizationId) headers['X-Organization-Id'] = credentials.organizationId;
    }
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}/rpc/${encodeURIComponent(procedure)}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(input),
      });
    } catch {
      throw new RpcError({
        code: 'network_error',
        message: 'Check your connection, or whether the platform is running, and try again.',
        status: 0,
        requestId,
      });
    }
    const answeredId = response.headers.get('X-Request-Id') ?? requestId;
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    if (response.ok && body !== undefined) return { body: body as T, version: versionOfEntityTag(response.headers.get('ETag')) };
    const error = (body as ErrorBody | undefined)?.error;
    const rpcError =
      error && typeof error.code === 'string' && typeof error.message === 'string'
        ? new RpcError({ code: error.code, message: error.message, status: response.status, requestId: answeredId, details: detailsFrom(error.details) })
        : new RpcError({ code: 'bad_response', message: `HTTP ${response.status}`, status: response.status, requestId: answeredId });
    if (rpcError.status === 401) options.onUnauthorized?.(rpcError);
    throw rpcError;
  }

  // The types are the contracts', by name; the wire is the same for every name.
  const call = async (procedure: string, input: unknown = {}) => (await send<never>(procedure, input)).body;
  const callVersioned = (procedure: string, input: unknown = {}) => send<never>(procedure, input);
  return { call: call as RpcClient['call'], callVersioned: callVersioned as NonNullable<RpcClient['callVersioned']> };
}
