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

/** A webhook receiver on loopback that answers 204 and keeps what each request said. */
export async function startReceiver(): Promise<{ url: string; receipts: Receipt[]; close(): Promise<void> }> {
  const receipts: Receipt[] = [];
  const server: Server = createServer((request, response) => {
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
