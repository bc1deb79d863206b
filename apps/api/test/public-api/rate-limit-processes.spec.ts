import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { startTestApi, type TestApi } from '../support/test-api';
import { startApiProcess, stopApiProcess, type ApiProcess } from '../support/api-processes';
import { admissionOf, createOrganizationWithKey, type Admission, type OrganizationWithKey } from '../support/public-api-fixtures';

const BURST = 4;
// One token every 50 s: within a test, the refill stays below one whole token.
const RATE_PER_SECOND = 0.02;

type ProcessAdmission = Admission & { process: number };

/** DESIGN 6: the PostgreSQL store (the default) shares each key's bucket across api processes. */
describe('/api/v1 rate limit across two api OS processes on one database', () => {
  let database: TestDatabase;
  let setup: TestApi;
  let org: OrganizationWithKey;
  const processes: ApiProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    // Sets up the organization, the flag and the keys over /rpc; the processes only serve /api/v1.
    setup = await startTestApi({}, { database });
    org = await createOrganizationWithKey(setup);
    const smallBucket = { PUBLIC_API_BURST: String(BURST), PUBLIC_API_RATE_PER_SECOND: String(RATE_PER_SECOND) };
    await Promise.all([startApiProcess(database, processes, smallBucket), startApiProcess(database, processes, smallBucket)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map(stopApiProcess));
    await setup?.close();
    await database?.drop();
  }, 60_000);

  async function send(processIndex: number, token: string): Promise<ProcessAdmission> {
    const response = await fetch(`${processes[processIndex].url}/api/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
    return { process: processIndex, ...(await admissionOf(response)) };
  }

  /** Tokens a bucket can have handed out over `seconds`: the burst plus the refill, plus one of slack. */
  const mostAdmittedOver = (seconds: number) => Math.floor(BURST + RATE_PER_SECOND * seconds + 1);

  it('alternating requests count down one bucket: the remaining counts interleave 3, 2, 1, 0 across the processes', async () => {
    const { token } = await org.createKey({ name: 'alternating' });
    const startedAt = performance.now();
    const admissions: ProcessAdmission[] = [];
    for (let i = 0; i < 10; i++) admissions.push(await send(i % 2, token));
    const elapsedSeconds = (performance.now() - startedAt) / 1000;

    // Separate buckets would answer 3, 3, 2, 2, ...
    expect(admissions.slice(0, BURST)).toEqual([
      { process: 0, status: 200, limit: '4', remaining: '3', retryAfter: null },
      { process: 1, status: 200, limit: '4', remaining: '2', retryAfter: null },
      { process: 0, status: 200, limit: '4', remaining: '1', retryAfter: null },
      { process: 1, status: 200, limit: '4', remaining: '0', retryAfter: null },
    ]);
    const admitted = admissions.filter((admission) => admission.status === 200).length;
    expect(admitted).toBeLessThanOrEqual(mostAdmittedOver(elapsedSeconds));
    const rest = admissions.slice(BURST).filter((admission) => admission.status !== 200);
    expect(rest.every((admission) => admission.status === 429 && admission.limit === '4' && admission.remaining === '0')).toBe(true);
    // Both processes refused some: neither kept a bucket of its own.
    expect(new Set(rest.map((admission) => admission.process))).toEqual(new Set([0, 1]));
  });

  it('concurrent requests to both processes never admit more than burst plus the refill of the window', async () => {
    const { token } = await org.createKey({ name: 'concurrent' });
    const startedAt = performance.now();
    const admissions = await Promise.all(Array.from({ length: 16 }, (_, i) => send(i % 2, token)));
    const elapsedSeconds = (performance.now() - startedAt) / 1000;

    const admitted = admissions.filter((admission) => admission.status === 200);
    expect(admissions.every((admission) => admission.status === 200 || admission.status === 429)).toBe(true);
    expect(admissions.every((admission) => admission.limit === '4')).toBe(true);
    expect(admitted.length).toBeGreaterThanOrEqual(BURST);
    expect(admitted.length).toBeLessThanOrEqual(mostAdmittedOver(elapsedSeconds));
    // Each take saw the one before it, whichever process served it: no two admitted answers share a count.
    const counts = admitted.map((admission) => Number(admission.remaining));
    expect(new Set(counts).size).toBe(counts.length);
    expect(counts.every((count) => count >= 0 && count < BURST)).toBe(true);
    // Eight requests each, at most five admitted in all: both processes refused some.
    for (const processIndex of [0, 1]) {
      expect(admissions.some((admission) => admission.process === processIndex && admission.status === 429)).toBe(true);
    }
  });
});
