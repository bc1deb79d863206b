import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { freePort } from '@mrp/platform';
import type { AppProcess } from '@mrp/platform/testing';
import type { DeployedApp } from '@mrp/platform/deploy';

/** What a receiver got: the request, and its answer still open while the receiver holds it. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  response: ServerResponse;
}

/** A loopback webhook receiver: 204 at once, or, while `state.hang` is true, every request held open unanswered. */
export async function startReceiver({ hang = false }: { hang?: boolean } = {}) {
  const received: Received[] = [];
  const held = new Set<ServerResponse>();
  const state = { hang };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body, response });
      if (state.hang) held.add(response);
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    state,
    async close() {
      held.forEach((response) => response.destroy());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * An api process (started by `start`) with a signed-in owner, an organization, a model and an
 * endpoint on `receiverUrl`: answers the process and a call that creates a record there, whose
 * event is then delivered to the receiver.
 */
export async function apiWithEndpoint(start: (name: DeployedApp, extra?: Record<string, string>) => AppProcess, receiverUrl: string, jwtSecret: string) {
  const port = await freePort();
  const api = start('api', { PORT: String(port) });
  await api.waitForLine(/api listening/);
  const token = await new SignJWT({ email: `owner-${randomUUID()}@example.com`, name: 'Owner' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(randomUUID())
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(jwtSecret));
  const rpc = async (name: string, input: unknown, organizationId?: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/rpc/${name}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(organizationId ? { 'X-Organization-Id': organizationId } : {}) },
      body: JSON.stringify(input),
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status !== 200) throw new Error(`${name}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const organizationId = (await rpc('organizations.create', { name: `Deliveries ${randomUUID()}` })).id as string;
  await rpc('dataModels.create', { key: 'orders', name: 'Orders' }, organizationId);
  await rpc('webhooks.endpoints.create', { url: receiverUrl, subscriptions: ['data-models.record-created'] }, organizationId);
  return { api, createRecord: (title: string) => rpc('records.create', { model: 'orders', data: { title } }, organizationId) };
}
