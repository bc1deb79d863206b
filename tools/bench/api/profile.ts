/**
 * CPU profiles of the api under load: `npm run bench:api:profile [-- <folder>]`.
 *
 * Seeds a throwaway database as bench:api does, then, for GET /api/v1/records/{id} and
 * POST /api/v1/models/{key}/records in turn, starts the api (its bundle, production settings) with
 * `--cpu-prof`, drives it with wrk for BENCH_DURATION_SECONDS (default 10) and stops it, which
 * writes one `.cpuprofile` per route into the folder (default `.bench/profiles`). Open them in
 * Chrome DevTools (Performance) or speedscope for a flame graph; `summarise-profile.ts` prints the
 * heaviest functions.
 */
import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createThrowawayDatabase } from '../shared/throwaway-database';
import { MODEL_KEY, sampleData, seedDatabase } from './seed';
import { apiEnvironment, startApiProcess } from './server-process';
import { wrk } from './wrk';

const SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);

async function main(): Promise<void> {
  const folder = resolve(process.argv[2] ?? resolve(__dirname, '../../../.bench/profiles'));
  mkdirSync(folder, { recursive: true });
  const database = await createThrowawayDatabase();
  try {
    const seeded = await seedDatabase(database.url, 16);
    const routes = [
      { name: 'get-record', request: { url: `/api/v1/records/${seeded.recordId}`, method: 'GET' as const } },
      {
        name: 'post-record',
        request: {
          url: `/api/v1/models/${MODEL_KEY}/records`,
          method: 'POST' as const,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ data: sampleData('Profiled order') }),
        },
      },
    ];
    for (const route of routes) {
      const scratch = join(folder, `.${route.name}`);
      mkdirSync(scratch, { recursive: true });
      const api = await startApiProcess('api', apiEnvironment(database.url), ['--cpu-prof', `--cpu-prof-dir=${scratch}`]);
      try {
        const request = { ...route.request, url: `${api.url}${route.request.url}`, tokens: seeded.tokens };
        await wrk(request, { threads: 1, connections: 16, seconds: 3 });
        const figures = await wrk(request, { threads: 1, connections: 16, seconds: SECONDS });
        console.log(`${route.name}: ${Math.round(figures.requestsPerSecond)} req/s under the profiler`);
      } finally {
        await api.stop();
      }
      const [profile] = readdirSync(scratch).filter((name) => name.endsWith('.cpuprofile'));
      if (!profile) throw new Error(`the api wrote no profile for ${route.name}`);
      renameSync(join(scratch, profile), join(folder, `${route.name}.cpuprofile`));
      console.log(`  ${join(folder, `${route.name}.cpuprofile`)}`);
    }
  } finally {
    await database.drop();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:api:profile: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
