import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@mrp/platform/testing';
import { startTestApi, type TestApi } from '../support/test-api';
import { startApiProcess, stopApiProcess, type ApiProcess } from '../support/api-processes';
import { createOrganizationWithKey, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';

const CRASH_PRELOAD = join(__dirname, '..', 'support', 'crash-before-answering.cjs');

/**
 * The answer kept for an Idempotency-Key commits with the change it answers: an api process killed
 * (SIGKILL) after the commit and before its answer leaves cannot lose it, and the retry, served by
 * a new process, gets that very answer, with exactly one record written.
 */
describe('/api/v1 Idempotency-Key across a crash of the api process', () => {
  let database: TestDatabase;
  let setup: TestApi;
  let org: OrganizationWithKey;
  const processes: ApiProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    // Sets up the organization, the flag and the key; the processes serve the requests under test.
    setup = await startTestApi({}, { database });
    org = await createOrganizationWithKey(setup, { name: 'Crash Inc' });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map(stopApiProcess));
    await setup?.close();
    await database?.drop();
  }, 60_000);

  it('a process killed between commit and answer: the retry gets the committed answer, and one record exists', async () => {
    const key = randomUUID();
    const title = `Survives the crash ${key}`;
    const send = (process: ApiProcess) =>
      fetch(`${process.url}/api/v1/models/${org.modelKey}/records`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${org.key.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ data: { title } }),
      });

    const crashing = await startApiProcess(database, processes, { NODE_OPTIONS: `--require "${CRASH_PRELOAD}"`, CRASH_BEFORE_ANSWERING_KEY: key });
    await expect(send(crashing)).rejects.toThrow();
    expect(await crashing.app.exited).toMatchObject({ signal: 'SIGKILL' });

    // The change and its answer committed together, before the process died.
    const written = await queryDatabase<{ id: string }>(setup, 'SELECT id::text FROM records WHERE title = $1', [title]);
    expect(written).toHaveLength(1);
    const kept = await queryDatabase<{ status: number }>(setup, 'SELECT status FROM idempotent_requests WHERE key = $1', [key]);
    expect(kept).toEqual([{ status: 201 }]);

    const restarted = await startApiProcess(database, processes);
    const retry = await send(restarted);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(`/api/v1/records/${written[0].id}`);
    expect(((await retry.json()) as { id: string; title: string })).toMatchObject({ id: written[0].id, title });
    expect(await queryDatabase(setup, 'SELECT id FROM records WHERE title = $1', [title])).toHaveLength(1);
  }, 180_000);
});
