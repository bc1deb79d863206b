import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { JsonAnswerTransport } from './json-answer-transport';
import { transportHeaders } from './mcp-router';

const ACCEPT = { accept: 'application/json, text/event-stream' };

/** A real SDK Server with one handler, connected to a transport of its own, as the router does per request. */
async function connected(): Promise<{ transport: JsonAnswerTransport; heard: string[] }> {
  const server = new Server({ name: 'spec', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  const heard: string[] = [];
  server.fallbackNotificationHandler = async (notification) => {
    heard.push(notification.method);
  };
  const transport = new JsonAnswerTransport();
  await server.connect(transport);
  return { transport, heard };
}

describe('JsonAnswerTransport: the POST of the Streamable HTTP transport, stateless, answering JSON', () => {
  it("answers a request with the server's answer to it", async () => {
    const { transport } = await connected();
    expect(await transport.handle({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, ACCEPT)).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 3, result: { tools: [] } },
    });
  });

  it("answers a method the server does not know with the protocol's error, as a 200", async () => {
    const { transport } = await connected();
    const answer = await transport.handle({ jsonrpc: '2.0', id: 'a', method: 'resources/list' }, ACCEPT);
    expect(answer).toMatchObject({ status: 200, body: { jsonrpc: '2.0', id: 'a', error: { code: -32601 } } });
  });

  it('hands a notification to the server and answers 202 with no body', async () => {
    const { transport, heard } = await connected();
    expect(await transport.handle({ jsonrpc: '2.0', method: 'notifications/spec' }, ACCEPT)).toEqual({ status: 202 });
    // The server takes it up in a microtask of its own.
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['notifications/spec']);
  });

  it('refuses a client that does not accept both JSON and an event stream (406), and a message that is not JSON-RPC (400)', async () => {
    const { transport } = await connected();
    const { transport: another } = await connected();
    expect(await transport.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' })).toEqual({
      status: 406,
      body: { jsonrpc: '2.0', error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' }, id: null },
    });
    expect(await another.handle({ id: 1, method: 'tools/list' }, ACCEPT)).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' }, id: null },
    });
  });

  it('refuses a protocol version it does not speak, except on initialize, which negotiates one', async () => {
    const { transport } = await connected();
    const refused = await transport.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...ACCEPT, 'mcp-protocol-version': '1999-01-01' });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: -32000, message: expect.stringMatching(/^Bad Request: Unsupported protocol version: 1999-01-01/) } } });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spec', version: '1' } },
    };
    const { transport: fresh } = await connected();
    expect(await fresh.handle(initialize, { ...ACCEPT, 'mcp-protocol-version': '1999-01-01' })).toMatchObject({
      status: 200,
      body: { id: 1, result: { protocolVersion: '2025-06-18' } },
    });
  });

  it('hands the handlers only the headers the transport reads: never the key', async () => {
    const sent: Record<string, string> = {
      authorization: 'Bearer mrk_secret',
      accept: ACCEPT.accept,
      'mcp-protocol-version': '2025-06-18',
      cookie: 'session=1',
      'content-type': 'application/json',
    };
    const headers = transportHeaders({ get: (name: string) => sent[name.toLowerCase()] ?? '' });
    expect(headers).toEqual({ accept: ACCEPT.accept, 'mcp-protocol-version': '2025-06-18' });

    const server = new Server({ name: 'spec', version: '1.0.0' }, { capabilities: { tools: {} } });
    let seen: unknown;
    server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
      seen = extra.requestInfo?.headers;
      return { tools: [] };
    });
    const transport = new JsonAnswerTransport();
    await server.connect(transport);
    await transport.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect(seen).toEqual({ accept: ACCEPT.accept, 'mcp-protocol-version': '2025-06-18' });
  });

  it('serves one message once its server is connected, and answers only with the answer to that request', async () => {
    await expect(new JsonAnswerTransport().handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, ACCEPT)).rejects.toThrow(/once its server is connected/);
    const { transport } = await connected();
    await transport.send({ jsonrpc: '2.0', id: 99, result: {} });
    expect(await transport.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, ACCEPT)).toMatchObject({ status: 200, body: { id: 1 } });
    await expect(transport.handle({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, ACCEPT)).rejects.toThrow(/one message/);
  });
});
