/**
 * Preloaded into the api by `bench:api:memory` (node --expose-gc --require <bundle of this file>):
 * on SIGUSR2 it collects all garbage, then appends the process's memory, one JSON line, to
 * BENCH_MEMORY_PROBE_FILE. What survives a full collection is what the process holds; a heap
 * that grows only until the collector next runs is not a leak, and RSS alone cannot tell them apart.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_MEMORY_PROBE_FILE;
const collect = (globalThis as { gc?: () => void }).gc;
if (!file || !collect) throw new Error('the memory probe needs BENCH_MEMORY_PROBE_FILE and node --expose-gc');

process.on('SIGUSR2', () => {
  // Twice: objects freed by the first collection's finalizers go in the second.
  collect();
  collect();
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  appendFileSync(file, `${JSON.stringify({ at: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers })}\n`);
});
