import { Client } from 'pg';
import type { CreatedApiKey } from '@mrp/authz';
import { expectDocumentedAnswer } from './openapi-answers';
import { PLATFORM_ADMIN, newHuman, sessionToken, type SessionUser, type TestApi } from './test-api';

/** The model every fixture organization gets, with one field of each kind the REST tests need. */
export const TASK_FIELDS = [
  {
    key: 'status',
    name: 'Status',
    type: 'SELECT',
    config: {
      options: [
        { value: 'open', label: 'Open' },
        { value: 'done', label: 'Done' },
      ],
    },
  },
  { key: 'amount', name: 'Amount', type: 'NUMBER', config: { precision: 2 } },
  { key: 'notes', name: 'Notes', type: 'TEXT' },
] as const;

export interface KeyRequest {
  name?: string;
  fullAccess?: boolean;
  permissions?: string[];
  expiresAt?: string | null;
}

export interface Member {
  user: SessionUser;
  session: string;
}

export interface OrganizationWithKey {
  organizationId: string;
  owner: Member;
  modelKey: string;
  /** A full-access key of the owner, token included (shown once). */
  key: CreatedApiKey;
  /** Calls /rpc in this organization, as the owner unless another session is given; fails the test on a non-200. */
  rpc<T = unknown>(name: string, input: unknown, session?: string): Promise<T>;
  /** Creates an API key through /rpc as `session` (the owner by default). */
  createKey(request?: KeyRequest, session?: string): Promise<CreatedApiKey>;
  /** A new human who joined through an invite with these roles. */
  addMember(roleKeys: string[], name?: string): Promise<Member>;
}

/** Calls /rpc and fails the test unless it answers 200. */
export async function rpcOk<T = unknown>(api: TestApi, name: string, input: unknown, auth: { token: string; organizationId?: string }): Promise<T> {
  const { status, body } = await api.rpc<T>(name, input, auth);
  if (status !== 200) throw new Error(`${name} answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** Turns the public API on (or off) the way an operator does: featureFlags.set as a platform admin. */
export async function setPublicApiEnabled(api: TestApi, enabled: boolean): Promise<void> {
  await rpcOk(api, 'featureFlags.set', { key: 'public-api.enabled', enabled }, { token: await sessionToken(PLATFORM_ADMIN) });
}

let organizationCounter = 0;

/**
 * An organization set up exactly as a newcomer would, through /rpc: sign in, create the
 * organization, have a platform admin switch the public API on, define a model with fields,
 * then create a full-access API key.
 */
export async function createOrganizationWithKey(
  api: TestApi,
  { modelKey = 'tasks', enablePublicApi = true, name }: { modelKey?: string; enablePublicApi?: boolean; name?: string } = {},
): Promise<OrganizationWithKey> {
  organizationCounter += 1;
  const ownerUser = newHuman('owner');
  const owner: Member = { user: ownerUser, session: await sessionToken(ownerUser) };
  const organization = await rpcOk<{ id: string }>(
    api,
    'organizations.create',
    { name: name ?? `Org ${organizationCounter} ${ownerUser.email}` },
    { token: owner.session },
  );
  const organizationId = organization.id;
  if (enablePublicApi) await setPublicApiEnabled(api, true);

  const rpc = <T>(procedure: string, input: unknown, session = owner.session) =>
    rpcOk<T>(api, procedure, input, { token: session, organizationId });

  await rpc('dataModels.create', { key: modelKey, name: 'Tasks', description: 'Things to do' });
  for (const field of TASK_FIELDS) await rpc('dataModels.fields.create', { model: modelKey, ...field });

  const createKey = (request: KeyRequest = {}, session = owner.session) =>
    rpc<CreatedApiKey>('apiKeys.create', { name: 'Integration', fullAccess: true, ...request }, session);

  const addMember = async (roleKeys: string[], memberName = 'member'): Promise<Member> => {
    const user = newHuman(memberName);
    const session = await sessionToken(user);
    const { token } = await rpc<{ token: string }>('organizations.invite', { email: user.email, roleKeys });
    await rpcOk(api, 'organizations.acceptInvite', { token }, { token: session });
    return { user, session };
  };

  return { organizationId, owner, modelKey, key: await createKey(), rpc, createKey, addMember };
}

/** /api/v1 requests with an API key. */
export interface PublicApiClient {
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, json: unknown, headers?: Record<string, string>): Promise<Response>;
  patch(path: string, json: unknown, headers?: Record<string, string>): Promise<Response>;
  delete(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A body sent as it is, with this content type (none when omitted). */
  raw(method: string, path: string, body: string | undefined, contentType?: string): Promise<Response>;
}

/**
 * Every answer is checked against the OpenAPI document the api serves for `token` (status,
 * documented headers, body): an answer the document does not describe fails the test.
 */
export function publicApi(api: TestApi, token: string | undefined): PublicApiClient {
  const send = async (path: string, init: RequestInit & { json?: unknown }) => {
    const answer = await api.request(`/api/v1${path}`, { ...init, token });
    await expectDocumentedAnswer(api, token, { method: init.method ?? 'GET', path }, answer);
    return answer;
  };
  return {
    get: (path, headers) => send(path, { method: 'GET', headers }),
    post: (path, json, headers) => send(path, { method: 'POST', json, headers }),
    patch: (path, json, headers) => send(path, { method: 'PATCH', json, headers }),
    delete: (path, headers) => send(path, { method: 'DELETE', headers }),
    raw: (method, path, body, contentType) => send(path, { method, body, headers: contentType ? { 'Content-Type': contentType } : {} }),
  };
}

/** Runs SQL on the api's database directly (as an operator or a test inspecting state would). */
export async function queryDatabase<Row extends Record<string, unknown>>(api: TestApi, text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: api.database.directUrl });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ISO 8601 in UTC with Z, as every timestamp of the API. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
/** A UUID of version 7 (time-ordered). */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface ApiError {
  code: string;
  message: string;
  requestId: string;
  details?: Array<{ field: string; code: string; message: string }>;
}

/**
 * Asserts the contract's error answer: the status, JSON `{ error: { code, message, details?, requestId } }`
 * and nothing else (the request id is the X-Request-Id header's), with no stack trace or source
 * path in it. Returns the error for further checks.
 */
export async function expectError(response: Response, status: number, code: string): Promise<ApiError> {
  const text = await response.text();
  expect({ status: response.status, body: text }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error: ApiError };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(body.error)) expect(['code', 'message', 'details', 'requestId']).toContain(key);
  expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
  for (const detail of body.error.details ?? []) {
    expect(Object.keys(detail).sort()).toEqual(['code', 'field', 'message']);
  }
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|node_modules/);
  return body.error;
}

/** What a response says about the key's bucket: its status and the rate-limit headers. */
export interface Admission {
  status: number;
  limit: string | null;
  remaining: string | null;
  retryAfter: string | null;
}

export async function admissionOf(response: Response): Promise<Admission> {
  await response.arrayBuffer();
  return {
    status: response.status,
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: response.headers.get('x-ratelimit-remaining'),
    retryAfter: response.headers.get('retry-after'),
  };
}

/** An error body without its request id, which differs from one answer to the next: for comparing two answers. */
export function withoutRequestId<T>(body: T): T {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (!error || typeof error !== 'object') return body;
  const { requestId: _requestId, ...rest } = error;
  return { ...(body as object), error: rest } as T;
}
