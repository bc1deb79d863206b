import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receipt {
  at: number;
  deliveryId: string;
  idempotencyKey: string;
  attempt: number;
  eventId: string;
  recordId: string | undefined;
}

export interface ReceiverOptions {
  /** The address to listen on: loopback unless given (the fleet's receiver host listens on its own). */
  host?: string;
  /** 0 (unless given): a free port. */
  port?: number;
}

/**
 * A webhook receiver that answers 204 to every POST and keeps what each request said. A GET of
 * `/receipts` answers them all as JSON, for a test whose receiver runs in another process.
 */
export async function startReceiver(options: ReceiverOptions = {}): Promise<{ url: string; receipts: Receipt[]; close(): Promise<void> }> {
  const host = options.host ?? '127.0.0.1';
  const receipts: Receipt[] = [];
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/receipts') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(receipts));
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const event = JSON.parse(body) as { id: string; payload?: { recordId?: string } };
      receipts.push({
        at: Date.now(),
        deliveryId: String(request.headers['webhook-delivery-id']),
        idempotencyKey: String(request.headers['idempotency-key']),
        attempt: Number(request.headers['webhook-attempt']),
        eventId: event.id,
        recordId: event.payload?.recordId,
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, () => resolve()));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
