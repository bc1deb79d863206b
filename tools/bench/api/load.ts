import { resolve } from 'node:path';
import autocannon from 'autocannon';

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** API tokens to spread over the connections, one per connection in turn (else `headers` authenticate). */
  tokens?: readonly string[];
  body?: string;
  /** The status every answer must have; anything else fails the benchmark rather than flattering it. */
  expectedStatus: number;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
}

/**
 * Drives one route with autocannon (no pipelining) from a worker thread, so the load generator
 * does not share the event loop of the servers under test: a warm-up run first, then the measured run.
 */
export async function measure(request: LoadRequest, settings: LoadSettings): Promise<LoadFigures> {
  if (request.tokens) {
    if (Object.keys(request.headers).some((name) => name.toLowerCase() === 'authorization')) {
      throw new Error('Give either tokens or an Authorization header, not both');
    }
    process.env.BENCH_API_TOKENS = JSON.stringify(request.tokens);
  }
  const options = {
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    // The worker reads BENCH_API_TOKENS from the environment it starts with.
    ...(request.tokens ? { setupClient: resolve(__dirname, 'key-per-connection.cjs') } : {}),
    connections: settings.connections,
    pipelining: 1,
    workers: 1,
    timeout: 10,
  };
  await autocannon({ ...options, duration: settings.warmupSeconds });
  const result = await autocannon({ ...options, duration: settings.durationSeconds });
  const statuses = Object.keys(result.statusCodeStats);
  if (result.errors > 0 || result.timeouts > 0 || statuses.some((status) => Number(status) !== request.expectedStatus)) {
    throw new Error(
      `${request.method} ${request.url}: expected only ${request.expectedStatus}, got statuses ${JSON.stringify(result.statusCodeStats)}, ` +
        `${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const total = Object.values(result.statusCodeStats).reduce((sum, { count }) => sum + Number(count), 0);
  return { requestsPerSecond: total / result.duration, p50: result.latency.p50, p99: result.latency.p99, total };
}
