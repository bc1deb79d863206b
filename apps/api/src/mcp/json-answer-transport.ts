import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** What POST /mcp answers for one message: 202 with no body for a notification or a response, else the JSON-RPC answer. */
export interface McpHttpAnswer {
  status: number;
  body?: JSONRPCMessage | JsonRpcRefusal;
}

/** A refusal before any message reaches the server, as the Streamable HTTP transport words it. */
interface JsonRpcRefusal {
  jsonrpc: '2.0';
  error: { code: number; message: string };
  id: null;
}

const refusal = (status: number, code: number, message: string): McpHttpAnswer => ({ status, body: { jsonrpc: '2.0', error: { code, message }, id: null } });

/** The request headers a handler may read; the key is never among them. */
export type McpRequestHeaders = Record<string, string>;

/**
 * The POST of the Streamable HTTP transport, stateless and answering JSON, for one JSON-RPC
 * message whose body the router has read and checked (content type, size, depth, no batch): the
 * Accept header, the message's shape and MCP-Protocol-Version are checked as the SDK's
 * web-standard transport checks them, with its status codes and words; a request waits for the
 * server's answer. A transport per HTTP request, so the SDK's `Server` (the protocol: schemas,
 * handlers, errors) is untouched.
 *
 * Why not the SDK's transport (decision 161): it answers through a web `Response` whose body is a
 * stream, read back here as text, which cost more than a third of a tool call's CPU; with this
 * one, /mcp went from 0.57x to 0.79x of /api/v1 in bench:mcp.
 */
export class JsonAnswerTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private deliver?: (answer: JSONRPCMessage) => void;
  private requestId?: string | number;
  private handled = false;

  /** Nothing to open: the HTTP request is already under way. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /**
   * The server's answer to the request is the HTTP answer; anything else it sends (a notification
   * about the request, such as progress) has no stream to go to in a JSON answer, as with the SDK's
   * transport in JSON mode.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && !('method' in message) && message.id === this.requestId) this.deliver?.(message);
  }

  /** One message, once: a transport serves one HTTP request, after the server's `connect`. */
  async handle(body: unknown, headers: McpRequestHeaders): Promise<McpHttpAnswer> {
    if (this.handled || !this.onmessage) throw new Error('A JsonAnswerTransport handles one message, once its server is connected');
    this.handled = true;
    const accept = headers['accept'] ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success) return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
    const message = parsed.data;
    const isRequest = 'method' in message && 'id' in message;
    const version = headers['mcp-protocol-version'];
    // An initialize request negotiates the version in its params; every other message names one the server speaks, if any.
    if (!(isRequest && message.method === 'initialize') && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return refusal(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
    const extra: MessageExtraInfo = { requestInfo: { headers } };
    if (!isRequest) {
      this.onmessage(message, extra);
      return { status: 202 };
    }
    this.requestId = message.id;
    const answered = new Promise<JSONRPCMessage>((resolve) => (this.deliver = resolve));
    this.onmessage(message, extra);
    return { status: 200, body: await answered };
  }
}
