import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Backend {
  host: string;
  port: number;
}

export interface Balancer {
  url: string;
  close(): Promise<void>;
}

/** The check operations.md asks of a load balancer: every second, out after 2 failures, in after 1 success. */
const CHECK_PATH = '/health/ready';
const CHECK_INTERVAL_MS = 1_000;
const FAILURES_TO_REMOVE = 2;

/**
 * A TCP load balancer on loopback: each client connection goes to the next backend in turn among
 * those whose GET /health/ready answers 200 (every backend when none does), and to the one after
 * it when a backend refuses or cannot be reached (a dead host, before its checks fail). A
 * connection under way when its backend dies is cut: the client sees it, as behind a real one.
 */
export async function startBalancer(backends: readonly Backend[]): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<Socket>();
  const failures = backends.map(() => 0);
  const check = async (index: number) => {
    const { host, port } = backends[index];
    const ready = await fetch(`http://${host}:${port}${CHECK_PATH}`, { signal: AbortSignal.timeout(CHECK_INTERVAL_MS) })
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status === 200;
      })
      .catch(() => false);
    failures[index] = ready ? 0 : failures[index] + 1;
  };
  const checks = setInterval(() => backends.forEach((_backend, index) => void check(index)), CHECK_INTERVAL_MS);
  const pick = (): Backend => {
    const healthy = backends.filter((_backend, index) => failures[index] < FAILURES_TO_REMOVE);
    const candidates = healthy.length > 0 ? healthy : backends;
    return candidates[next++ % candidates.length];
  };
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const open = (client: Socket, tried: number) => {
    if (tried >= backends.length) {
      client.destroy();
      return;
    }
    const backend = pick();
    const upstream = connect({ host: backend.host, port: backend.port });
    track(upstream);
    upstream.setNoDelay(true);
    // A backend that answers nothing (its network cut) is skipped after this long.
    upstream.setTimeout(1_000);
    const onConnectFailure = () => {
      upstream.destroy();
      if (!client.destroyed) open(client, tried + 1);
    };
    upstream.once('error', onConnectFailure);
    upstream.once('timeout', onConnectFailure);
    upstream.once('connect', () => {
      upstream.off('error', onConnectFailure);
      upstream.off('timeout', onConnectFailure);
      upstream.setTimeout(0);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.setNoDelay(true);
    client.on('error', () => undefined);
    open(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      clearInterval(checks);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
