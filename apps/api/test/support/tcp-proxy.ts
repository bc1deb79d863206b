import { connect, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '@mrp/platform';

export interface TcpProxy {
  port: number;
  /** Refuses new connections and drops those open, as a lost network or a dead host does. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
}

/**
 * A loopback TCP proxy to `target`: a process reaches its database through it, and the test takes
 * the database away from that process alone, never from anyone else on the machine.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const listening = createServer((client) => {
        const upstream = connect(target.port, target.host);
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        for (const socket of [client, upstream]) {
          socket.on('error', drop);
          socket.on('close', drop);
        }
        client.pipe(upstream).pipe(client);
      });
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        server = listening;
        resolve();
      });
    });
  await open();
  return {
    port,
    async cut() {
      const closing = server;
      server = undefined;
      const closed = closing ? new Promise<void>((resolve) => closing.close(() => resolve())) : Promise.resolve();
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await closed;
    },
    restore: open,
  };
}

/** `databaseUrl` with its host and port replaced by the proxy's. */
export function throughProxy(databaseUrl: string, proxy: TcpProxy): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.toString();
}
