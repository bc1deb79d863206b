/**
 * The platform as a fleet on one PostgreSQL behind PgBouncer in transaction mode: two api hosts
 * behind a load balancer, two webhook workers, two cron-runners and a receiver, each host in a
 * network namespace of its own (fleet.ts). Under load it shows the rate limit exact across api
 * hosts, an Idempotency-Key sent to both at once kept once, every webhook delivered exactly once,
 * then, through SIGKILLed hosts, a worker cut off for 30 s and PgBouncer restarted, nothing lost,
 * nothing run twice, the survivors carrying on by themselves; and every scheduled slot run once.
 * The figures are printed for docs/operations.md, "What a fleet survives". Runs as root (network
 * namespaces), once, by CI (`npm run test:fleet`), not by `npm test`.
 */
import { Client } from 'pg';
import { scheduleVariable } from '@mrp/runtime';
import type { Receipt } from '../support/receiver';
import { seedOrganization } from '../support/seed-organization';
import { startWriters, type Write, type WriterFigures } from '../support/writers';
import { startFleet, type DatabaseRoute, type Fleet, type Role } from './fleet';

/** FLEET_DATABASE_ROUTE=direct runs the apps straight at PostgreSQL (PgBouncer still there, unused). */
const ROUTE: DatabaseRoute = process.env.FLEET_DATABASE_ROUTE === 'direct' ? 'direct' : 'transaction-pooler';
const MODEL = 'orders';
const WRITERS = 8;
const BURST = 50;
const BURST_REQUESTS = 200;
/** A token per 1,000 s: the 200 requests, a second or two, refill nothing. */
const RATE_CHECK_ENV = { PUBLIC_API_RATE_PER_SECOND: '0.001', PUBLIC_API_BURST: String(BURST), ORGANIZATION_QUEUE_TIMEOUT_MS: '60000' };
/** Under load, the limit out of the way. */
const LOAD_ENV = { PUBLIC_API_RATE_PER_SECOND: '100000', PUBLIC_API_BURST: '100000' };
/** A cheap task made to run every minute (the finest a schedule allows), beside the tasks that do by default. */
const SLOT_TASK = 'prune-idempotent-requests';
const EVERY_MINUTE_TASKS = [SLOT_TASK, 'sweep-webhook-deliveries', 'run-automation-schedules', 'send-calendar-reminders', 'retry-field-indexes'];
const DELIVERY_TIMEOUT_MS = 90_000;
/** A slot's job is made within seconds of its minute and polled for every 5 s; the task itself takes milliseconds. */
const SLOT_RUN_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

interface LogLine {
  msg: string;
  task?: string;
  job?: string;
  time?: number;
}

function logLines(stdout: string): LogLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

interface Window {
  fault: string;
  start: number;
  end: number;
}

describe('the platform as a fleet', () => {
  let fleet: Fleet | undefined;
  let tokens: string[];
  let cronStartedAt: number;

  const the = (): Fleet => {
    if (!fleet) throw new Error('the fleet did not start');
    return fleet;
  };
  const query = async <T extends object>(sql: string, values: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: the().database.directUrl });
    await client.connect();
    try {
      return (await client.query<T>(sql, values)).rows;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('the fleet test runs as root: it creates network namespaces');
    fleet = await startFleet({ route: ROUTE, env: { [scheduleVariable(SLOT_TASK)]: '* * * * *' } });
    const roles: Role[] = ['api1', 'api2', 'worker1', 'worker2', 'cron1', 'cron2'];
    cronStartedAt = Date.now();
    await Promise.all(roles.map((role) => the().start(role, role.startsWith('api') ? RATE_CHECK_ENV : {})));
    // Keys: the writers', the rate check's, the idempotency check's (each key has a bucket of its own).
    ({ tokens } = await seedOrganization({ apiUrl: the().balancer.url, jwtSecret: the().jwtSecret, name: 'Fleet', modelKey: MODEL, receiverUrl: the().receiverUrl, keyCount: 3 }));
  }, 150_000);

  afterAll(async () => {
    await fleet?.close();
  }, 60_000);

  it('lets exactly the burst through across both api hosts', async () => {
    const { api1, api2 } = the().apiUrls;
    const answers = await Promise.all(
      Array.from({ length: BURST_REQUESTS }, async (_request, index) => {
        const host = index % 2 === 0 ? api1 : api2;
        const response = await fetch(`${host}/api/v1/models/${MODEL}/records?limit=1`, { headers: { Authorization: `Bearer ${tokens[1]}` } });
        await response.arrayBuffer();
        return { host, status: response.status };
      }),
    );
    const byStatus = (status: number) => answers.filter((answer) => answer.status === status);
    console.log(
      `Rate limit: ${BURST_REQUESTS} requests at once, burst ${BURST}: ${byStatus(200).length} 200 (${byStatus(200).filter((answer) => answer.host === api1).length} from api1), ${byStatus(429).length} 429`,
    );
    expect(byStatus(200).length).toBe(BURST);
    expect(byStatus(429).length).toBe(BURST_REQUESTS - BURST);
  });

  it('keeps one record for an Idempotency-Key sent to both api hosts at once', async () => {
    const { api1, api2 } = the().apiUrls;
    const keys = Array.from({ length: 20 }, (_key, index) => `fleet-idempotency-${index}`);
    const answers = await Promise.all(
      keys.flatMap((key) =>
        [api1, api2].map(async (host) => {
          const response = await fetch(`${host}/api/v1/models/${MODEL}/records`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${tokens[2]}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
            body: JSON.stringify({ data: { title: key } }),
          });
          const body = (await response.json()) as { id?: string };
          return { key, status: response.status, id: body.id };
        }),
      ),
    );
    const stored = await query<{ title: string; id: string }>('SELECT title, id::text FROM records WHERE title LIKE $1', ['fleet-idempotency-%']);
    console.log(`Idempotency: ${keys.length} keys each sent to both api hosts at once: answers ${JSON.stringify(countBy(answers.map((answer) => String(answer.status))))}, ${stored.length} records`);
    expect(stored.map((row) => row.title).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const succeeded = answers.filter((answer) => answer.key === key && answer.status === 201);
      expect(succeeded.length).toBeGreaterThanOrEqual(1);
      // A second 2xx is the first's answer replayed; anything else is the key in use (409).
      for (const answer of succeeded) expect(answer.id).toBe(stored.find((row) => row.title === key)?.id);
      for (const answer of answers.filter((candidate) => candidate.key === key && candidate.status !== 201)) expect(answer.status).toBe(409);
    }
  });

  describe('under load', () => {
    const firstReceipts = new Map<string, Receipt>();
    let receipts: Receipt[] = [];

    const collect = async () => {
      receipts = await the().receipts();
      for (const receipt of receipts) if (receipt.recordId && !firstReceipts.has(receipt.recordId)) firstReceipts.set(receipt.recordId, receipt);
    };
    const waitForDeliveries = async (writes: Write[]) => {
      await until(
        async () => {
          await collect();
          return writes.every((write) => firstReceipts.has(write.recordId));
        },
        DELIVERY_TIMEOUT_MS,
        'every record to be delivered',
      );
    };
    const expectRecordsMatch = async (prefix: string, writes: Write[]) => {
      const stored = await query<{ id: string; title: string }>('SELECT id::text, title FROM records WHERE title LIKE $1', [`${prefix} %`]);
      expect(stored.length).toBe(writes.length);
      expect(new Map(stored.map((row) => [row.title, row.id]))).toEqual(new Map(writes.map((write) => [write.title, write.recordId])));
    };
    const receiptsOf = (recordId: string) => receipts.filter((receipt) => receipt.recordId === recordId);

    beforeAll(async () => {
      // The api hosts again, with the limit out of the load's way: one at a time, as a rolling deploy.
      for (const role of ['api1', 'api2'] as const) {
        await the().stop(role);
        await the().start(role, LOAD_ENV);
      }
    }, 120_000);

    it('delivers every webhook exactly once when nothing fails', async () => {
      const writers = startWriters({ count: WRITERS, url: () => the().balancer.url, token: tokens[0], modelKey: MODEL, phase: () => 'steady', titlePrefix: 'steady' });
      await sleep(20_000);
      const figures = await writers.stop();
      await waitForDeliveries(figures.writes);
      console.log(`Steady: ${figures.writes.length} records in 20 s (${(figures.writes.length / 20).toFixed(0)}/s), answers ${JSON.stringify(Object.fromEntries(figures.byKind))}`);
      await expectRecordsMatch('steady', figures.writes);
      expect(figures.unexpected).toEqual([]);
      expect(figures.writes.length).toBeGreaterThan(0);
      for (const write of figures.writes) expect(receiptsOf(write.recordId).length).toBe(1);
    }, 150_000);

    it('loses nothing and runs nothing twice through killed hosts, a cut network and a PgBouncer restart', async () => {
      const fleet = the();
      const windows: Window[] = [];
      let phase = 'before the faults';
      const writers = startWriters({ count: WRITERS, url: () => fleet.balancer.url, token: tokens[0], modelKey: MODEL, phase: () => phase, titlePrefix: 'faults' });
      const fault = async (name: string, act: () => Promise<void>, windowMs: number, after?: () => Promise<void>) => {
        phase = name;
        const window: Window = { fault: name, start: Date.now(), end: 0 };
        windows.push(window);
        await act();
        await sleep(Math.max(0, window.start + windowMs - Date.now()));
        window.end = Date.now();
        phase = `after ${name}`;
        await after?.();
      };
      await sleep(5_000);

      // The cron-runner stays down: the other one runs every slot from here on.
      const cronKilledAt = Date.now();
      await fault('a cron-runner host SIGKILLed', () => fleet.kill('cron1'), 5_000);
      // An orchestrator starts a dead host again; until then the survivor serves alone.
      await fault('an api host SIGKILLed', () => fleet.kill('api1'), 10_000, async () => void (await fleet.start('api1', LOAD_ENV)));
      await fault('a worker host SIGKILLed', () => fleet.kill('worker1'), 16_000, async () => void (await fleet.start('worker1')));
      const cutSamples: string[] = [];
      await fault(
        "a worker host's network cut for 30 s",
        async () => {
          const cutAt = Date.now();
          await fleet.setLink('worker2', false);
          // What the database sees every 5 s of the cut: sessions waiting on a lock, and transactions idle over 3 s (the cut host's).
          for (let second = 5; second < 30; second += 5) {
            await sleep(cutAt + second * 1000 - Date.now());
            const [sample] = await query<{ waiting: number; idle: number }>(
              `SELECT count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting,
                      count(*) FILTER (WHERE state = 'idle in transaction' AND state_change < now() - interval '3 seconds')::int AS idle
                 FROM pg_stat_activity WHERE datname = current_database()`,
            );
            cutSamples.push(`${second} s: ${sample.waiting} waiting on a lock, ${sample.idle} idle in a transaction`);
          }
          await sleep(cutAt + 30_000 - Date.now());
          await fleet.setLink('worker2', true);
        },
        40_000,
      );
      let poolerDownMs = 0;
      await fault(
        'PgBouncer restarted',
        async () => {
          const at = Date.now();
          await fleet.database.restartPooler();
          poolerDownMs = Date.now() - at;
        },
        10_000,
      );
      const figures = await writers.stop();
      const writes = figures.writes;
      await waitForDeliveries(writes);

      // The figures first: a failed promise below still leaves them printed.
      const report = [
        `Fleet under faults (${ROUTE}): ${figures.requests} requests, ${writes.length} records, answers ${JSON.stringify(Object.fromEntries(figures.byKind))}`,
        `PgBouncer down for ${poolerDownMs} ms (stop and start)`,
        `PostgreSQL during the network cut: ${cutSamples.join('; ')}`,
        ...windows.map((window) => describeWindow(window, figures, writes, firstReceipts, receipts)),
      ];
      console.log(report.join('\n'));

      // Every 2xx create has its record, and only those.
      await expectRecordsMatch('faults', writes);
      // No 500, ever: what a fault breaks is a 503 or a cut connection, retried with its key.
      expect(figures.unexpected).toEqual([]);
      // Every record delivered (waited for above), each with one event and one key, however often sent.
      for (const write of writes) {
        const sent = receiptsOf(write.recordId);
        expect(new Set(sent.map((receipt) => receipt.eventId)).size).toBe(1);
        expect(new Set(sent.map((receipt) => receipt.idempotencyKey)).size).toBe(1);
      }
      // The survivors carried on: writes landed and deliveries arrived while each fault was on.
      for (const window of windows) {
        expect(writes.filter((write) => write.at >= window.start && write.at < window.end).length).toBeGreaterThan(0);
        expect(receipts.filter((receipt) => receipt.at >= window.start && receipt.at < window.end).length).toBeGreaterThan(0);
      }
      // The other worker carried on while one was cut off: deliveries arrived in the cut's second half.
      const cut = windows.find((window) => window.fault.includes('network')) as Window;
      expect(receipts.filter((receipt) => receipt.at >= cut.start + 15_000 && receipt.at < cut.start + 30_000).length).toBeGreaterThan(0);
      // Every host not killed for good still runs: none needed a hand.
      for (const role of ['api1', 'api2', 'worker1', 'worker2', 'cron2'] as const) expect(fleet.current(role)?.child.exitCode).toBeNull();
      // The slot after the kill ran on the surviving cron-runner.
      const ranAfterKill = logLines(fleet.current('cron2')?.output().stdout ?? '').filter((line) => line.msg === 'task ran' && line.task === SLOT_TASK && (line.time ?? 0) > cronKilledAt);
      expect(ranAfterKill.length).toBeGreaterThan(0);
    }, 300_000);
  });

  it('runs every scheduled slot once', async () => {
    // Every minute wholly between the cron-runners' start and a few seconds ago (the last slot's
    // run done): at least two, waited for when the run so far was quicker.
    const from = Math.ceil(cronStartedAt / 60_000) * 60_000;
    await sleep(from + 2 * 60_000 + SLOT_RUN_MS - Date.now());
    const to = Math.floor((Date.now() - SLOT_RUN_MS) / 60_000) * 60_000;
    const queues = EVERY_MINUTE_TASKS.map((task) => `task.${task}`);
    const jobsOf = (columns: string, where: string) =>
      query<Record<string, string>>(
        `SELECT ${columns} FROM pgboss.job WHERE ${where} UNION ALL SELECT ${columns} FROM pgboss.archive WHERE ${where}`,
        [queues],
      );
    // A slot is the timekeeper's job of the minute (one per task and minute, by its singleton),
    // whose handler inserts the task's job while it is active: each task job is matched to its slot by time.
    const slotJobs = await jobsOf(
      `singleton_key AS queue, to_char(singleton_on, 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"') AS slot, state,
       (extract(epoch FROM started_on) * 1000)::bigint::text AS started, (extract(epoch FROM completed_on) * 1000)::bigint::text AS completed`,
      `name = '__pgboss__send-it' AND singleton_key = ANY($1::text[])`,
    );
    const taskJobs = await jobsOf(`name AS queue, id::text, (extract(epoch FROM created_on) * 1000)::bigint::text AS created`, 'name = ANY($1::text[])');
    const runs = countBy(
      the()
        .incarnations.filter(({ role }) => role.startsWith('cron'))
        .flatMap(({ process }) => logLines(process.output().stdout))
        .filter((line) => line.msg === 'task ran' && line.job !== undefined)
        .map((line) => line.job as string),
    );
    const slots: string[] = [];
    for (let minute = from; minute < to; minute += 60_000) slots.push(new Date(minute).toISOString());
    const found = EVERY_MINUTE_TASKS.flatMap((task) =>
      slots.map((slot) => {
        const ofSlot = slotJobs.filter((job) => job.queue === `task.${task}` && job.slot === slot);
        const made = ofSlot.flatMap((slotJob) =>
          taskJobs.filter((job) => job.queue === `task.${task}` && Number(job.created) >= Number(slotJob.started) && Number(job.created) <= Number(slotJob.completed)),
        );
        return { task, slot, slotJobs: ofSlot.map((job) => job.state).join(','), taskJobs: made.length, runs: made.map((job) => runs[job.id] ?? 0).join(',') };
      }),
    );
    console.log(
      `Scheduled slots: ${slots.length} minutes x ${EVERY_MINUTE_TASKS.length} every-minute tasks:\n${found.map((row) => `${row.slot} ${row.task}: slot job ${row.slotJobs || 'none'}, task jobs ${row.taskJobs}, runs ${row.runs || 'none'}`).join('\n')}`,
    );
    expect(slots.length).toBeGreaterThanOrEqual(1);
    // Each slot made once, its task's job made once, and run once on one cron-runner.
    expect(found.filter((row) => row.slotJobs !== 'completed' || row.taskJobs !== 1 || row.runs !== '1')).toEqual([]);
  }, 180_000);
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Deliveries claimed just before a fault are its to delay: they count from this long before it. */
const IN_FLIGHT_LOOKBACK_MS = 2_000;

/**
 * One fault's figures: the share of the clients' requests that failed during it, the longest the
 * clients went without a success, when their last failure came, and how long deliveries of
 * records created from just before it to its end waited (the worst is the fault's recovery on
 * the delivery path: a dead or cut-off worker's claimed deliveries sent again by another).
 */
function describeWindow(window: Window, figures: WriterFigures, writes: Write[], firstReceipts: Map<string, Receipt>, receipts: Receipt[]): string {
  const outcomes = figures.outcomes.filter((outcome) => outcome.at >= window.start && outcome.at < window.end);
  const failures = outcomes.filter((outcome) => outcome.kind !== '201');
  let longestOutage = 0;
  let lastSuccess = window.start;
  for (const outcome of outcomes.filter((candidate) => candidate.kind === '201')) {
    longestOutage = Math.max(longestOutage, outcome.at - lastSuccess);
    lastSuccess = outcome.at;
  }
  longestOutage = Math.max(longestOutage, window.end - lastSuccess);
  const affected = writes.filter((write) => write.at >= window.start - IN_FLIGHT_LOOKBACK_MS && write.at < window.end);
  const delays = affected.map((write) => (firstReceipts.get(write.recordId) as Receipt).at - write.at);
  const resent = affected.filter((write) => receipts.filter((receipt) => receipt.recordId === write.recordId).length > 1).length;
  return [
    `${window.fault} at ${new Date(window.start).toISOString().slice(11, 19)} (${((window.end - window.start) / 1000).toFixed(0)} s watched): ${failures.length} of ${outcomes.length} requests failed (${((100 * failures.length) / Math.max(1, outcomes.length)).toFixed(1)}%${failures.length ? ` ${JSON.stringify(countBy(failures.map((failure) => failure.kind)))}` : ''})`,
    `longest without a success ${longestOutage} ms, last failure ${failures.length ? `${(failures.at(-1)?.at ?? 0) - window.start} ms` : 'none'} after the fault`,
    `deliveries of ${affected.length} records: worst commit-to-delivery ${Math.max(0, ...delays)} ms, ${delays.filter((delay) => delay > 2_000).length} over 2 s, ${resent} sent twice`,
  ].join('; ');
}
