import { describe, expect, expectTypeOf, it } from 'vitest';
import type { MeView } from '@mrp/authz/contracts';
import type { RunView } from '@mrp/automations/contracts';
import type { ModelListOutput, RecordOutput } from '@mrp/data-models/contracts';
import type { CalendarView } from '@mrp/views/contracts';
import type { ViewDeleteProcedure, ViewListProcedure, ViewOf } from '../views/ViewListPage';
import { createRpcClient } from './rpc-client';
import { RpcError, describeError, fieldErrorsOf } from './rpc-error';
import { useKeysetPages, type KeysetProcedure } from './use-keyset-pages';
import { useRpcQuery } from './use-rpc-query';

interface Sent {
  url: string;
  init: RequestInit;
}

function fakeFetch(respond: (sent: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    return respond({ url, init });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe('the rpc client', () => {
  it('gives the version of an answer from its entity tag, and none without one', async () => {
    const { fetch } = fakeFetch(({ url }) => (url.endsWith('records.get') ? json(200, { id: 'r1' }, { ETag: '"7-3"' }) : json(200, { items: [] })));
    const rpc = createRpcClient({ fetch, credentials: () => null });

    await expect(rpc.callVersioned?.('records.get', { id: 'r1' })).resolves.toEqual({ body: { id: 'r1' }, version: 7 });
    await expect(rpc.callVersioned?.('records.list', { model: 'tasks' })).resolves.toEqual({ body: { items: [] }, version: undefined });
  });

  it('posts the input to /rpc/{procedure} with the session, the organization and a request id', async () => {
    const { fetch, sent } = fakeFetch(() => json(200, { items: [] }));
    const rpc = createRpcClient({ fetch, credentials: () => ({ token: 'jwt', organizationId: 'org-1' }), newRequestId: () => 'req-1' });

    await expect(rpc.call('apiKeys.list', { a: 1 })).resolves.toEqual({ items: [] });

    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe('/rpc/apiKeys.list');
    expect(sent[0]?.init.method).toBe('POST');
    expect(sent[0]?.init.body).toBe('{"a":1}');
    expect(sent[0]?.init.headers).toMatchObject({
      Authorization: 'Bearer jwt',
      'X-Organization-Id': 'org-1',
      'X-Request-Id': 'req-1',
      'Content-Type': 'application/json',
    });
  });

  it('sends no organization header for user-scoped calls and no authorization when signed out', async () => {
    const { fetch, sent } = fakeFetch(() => json(200, {}));
    let credentials: { token: string; organizationId: string | null } | null = { token: 'jwt', organizationId: null };
    const rpc = createRpcClient({ fetch, credentials: () => credentials });
    await rpc.call('me.get');
    credentials = null;
    await rpc.call('me.get');
    expect(Object.keys(sent[0]?.init.headers as object)).not.toContain('X-Organization-Id');
    expect(Object.keys(sent[1]?.init.headers as object)).not.toContain('Authorization');
  });

  it("turns the server's error shape into an RpcError with status, details and the answered request id", async () => {
    const { fetch } = fakeFetch(() =>
      json(
        400,
        { error: { code: 'validation_failed', message: 'Invalid input', details: [{ field: 'name', code: 'required', message: 'must not be blank' }] } },
        { 'X-Request-Id': 'server-id' },
      ),
    );
    const rpc = createRpcClient({ fetch, credentials: () => null, newRequestId: () => 'mine' });
    const error = await rpc.call('apiKeys.create', { name: ' ', fullAccess: true }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: 'validation_failed', status: 400, requestId: 'server-id', message: 'Invalid input' });
    expect(fieldErrorsOf(error)).toEqual({ name: 'must not be blank' });
  });

  it('tells the session about a 401 so it can sign out', async () => {
    const { fetch } = fakeFetch(() => json(401, { error: { code: 'unauthorized', message: 'Session token has expired' } }));
    const told: RpcError[] = [];
    const rpc = createRpcClient({ fetch, credentials: () => ({ token: 'old', organizationId: null }), onUnauthorized: (error) => told.push(error) });
    await expect(rpc.call('me.get')).rejects.toMatchObject({ code: 'unauthorized' });
    expect(told.map((error) => error.message)).toEqual(['Session token has expired']);
  });

  it('keeps its own request id when the server cannot be reached', async () => {
    const { fetch } = fakeFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    const rpc = createRpcClient({ fetch, credentials: () => null, newRequestId: () => 'local-id' });
    const error = await rpc.call('me.get').catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: 'network_error', status: 0, requestId: 'local-id' });
    expect(describeError(error).title).toBe('The server could not be reached');
  });

  it('reports an answer that is not the error shape as a bad response with its status', async () => {
    const { fetch } = fakeFetch(() => new Response('<html>proxy error</html>', { status: 502 }));
    const rpc = createRpcClient({ fetch, credentials: () => null });
    await expect(rpc.call('me.get')).rejects.toMatchObject({ code: 'bad_response', status: 502, message: 'HTTP 502' });
  });

  it('types a call by the name: the input and answer of the procedure, from its contracts', async () => {
    const { fetch } = fakeFetch(() => json(200, { id: 'r1' }));
    const rpc = createRpcClient({ fetch, credentials: () => null });

    expectTypeOf(rpc.call('records.get', { id: 'r1' })).resolves.toEqualTypeOf<RecordOutput>();
    expectTypeOf(rpc.call('dataModels.list')).resolves.toEqualTypeOf<ModelListOutput>();
    expectTypeOf(rpc.call('me.get')).resolves.toEqualTypeOf<MeView>();
    // @ts-expect-error an input of the wrong type
    await rpc.call('records.get', { id: 1 }).catch(() => undefined);
    // @ts-expect-error an input that is required and left out
    await rpc.call('records.get').catch(() => undefined);
    // @ts-expect-error a name no contracts map has: there is no untyped way to call
    await rpc.call('records.nothing', { id: 'r1' }).catch(() => undefined);
    // @ts-expect-error the same for a call with the answer's version
    await rpc.callVersioned?.('records.nothing', { id: 'r1' }).catch(() => undefined);
  });

  it('types the generic helpers by the name too: the query, the pages and their items, the list page of views', () => {
    // Hooks run inside a component only: these calls are typechecked, never made.
    function useEveryHelper() {
      expectTypeOf(useRpcQuery('records.get', { id: 'r1' }).data).toEqualTypeOf<RecordOutput | undefined>();
      expectTypeOf(useRpcQuery('dataModels.list').data).toEqualTypeOf<ModelListOutput | undefined>();
      // @ts-expect-error a name no contracts map has
      useRpcQuery('records.nothing');
      // @ts-expect-error an input of the wrong type
      useRpcQuery('records.get', { id: 1 });
      // @ts-expect-error an input that is required and left out
      useRpcQuery('records.get');

      expectTypeOf(useKeysetPages('automations.runs.list', { automationId: 'a1', limit: 25 }).items).toEqualTypeOf<RunView[]>();
      // @ts-expect-error a name no contracts map has
      useKeysetPages('automations.runs.nothing', {});
      // @ts-expect-error a name whose answer is not pages
      useKeysetPages('dataModels.list', {});
      // @ts-expect-error an input of the wrong type
      useKeysetPages('automations.runs.list', { automationId: 1 });
      // @ts-expect-error the cursor is the helper's to give
      useKeysetPages('automations.runs.list', { cursor: 'c1' });
    }
    expectTypeOf(useEveryHelper).returns.toBeVoid();

    expectTypeOf<'automations.runs.list'>().toExtend<KeysetProcedure>();
    expectTypeOf<'dataModels.list'>().not.toExtend<KeysetProcedure>();
    expectTypeOf<ViewListProcedure>().toEqualTypeOf<'kanban.boards.list' | 'calendars.list'>();
    expectTypeOf<ViewOf<'calendars.list'>>().toEqualTypeOf<CalendarView>();
    expectTypeOf<ViewDeleteProcedure<'calendars.list'>>().toEqualTypeOf<'calendars.delete'>();
    expectTypeOf<ViewDeleteProcedure<'kanban.boards.list'>>().toEqualTypeOf<'kanban.boards.delete'>();
  });
});
