import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { freePort, processAlive } from '@mrp/platform';
import { startScriptProcess, type AppProcess } from '@mrp/platform/testing';

/**
 * `npm start` as an operator meets it: the launcher process with its apps and the embedded
 * PostgreSQL, signalled the way a terminal, `kill` or a crash would. Every test waits for every
 * process it started to be gone, within a bound.
 */

const LAUNCHER = 'tools/scripts/start.ts';
const READY = /Platform running: api on (http:\/\/\S+)/;
const STOP_BOUND_MS = 30_000;
const KILLED_STOP_BOUND_MS = 60_000;


/** Which process of the platform a pid is, so a failure says which one outlived its launcher. */
const processNames = new Map<number, string>();

/** A file of /proc for `pid`, or '' (no /proc, or the process is gone). */
function procFile(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/** The state letter and the start time (in clock ticks since boot) of /proc/<pid>/stat; undefined without /proc. */
function procStat(pid: number): { state: string; startedAt: string } | undefined {
  // The command name, in parentheses, may hold spaces: the fields are counted after its last ')'.
  const fields = procFile(pid, 'stat').split(') ')[1]?.split(' ');
  return fields ? { state: fields[0], startedAt: fields[19] } : undefined;
}

/** When each platform process started, to tell it from a later process given the same number. */
const startTimes = new Map<number, string>();

/**
 * Whether the platform's process `pid` is still running: not if it exited and waits to be reaped
 * (a zombie: stopped, whoever reaps it) or if its number now belongs to another process.
 */
function stillRunning(pid: number): boolean {
  if (!processAlive(pid)) return false;
  const stat = procStat(pid);
  if (!stat) return true;
  const startedAt = startTimes.get(pid);
  return stat.state !== 'Z' && (startedAt === undefined || stat.startedAt === startedAt);
}

/** What the kernel says a process is doing (its state, where it waits, its command), for a failure's message. */
function kernelView(pid: number): string {
  const state = /^State:\s*(.+)$/m.exec(procFile(pid, 'status'))?.[1] ?? 'unknown';
  const command = procFile(pid, 'cmdline').split('\0').join(' ').trim().slice(0, 120);
  return `state ${state}, waiting in ${procFile(pid, 'wchan') || 'unknown'}, ${command || 'no command line'}; ${threadsAndOutputs(pid)}`;
}

/** What each thread waits in, and where stdout and stderr lead: what a process that will not stop is stuck on. */
function threadsAndOutputs(pid: number): string {
  const safely = (value: () => string) => {
    try {
      return value();
    } catch {
      return '?';
    }
  };
  const threads = safely(() =>
    readdirSync(`/proc/${pid}/task`)
      .map((task) => `${procFile(pid, `task/${task}/comm`).trim()}:${procFile(pid, `task/${task}/wchan`) || '?'}`)
      .join(' '),
  );
  return `threads ${threads}; stdout ${safely(() => readlinkSync(`/proc/${pid}/fd/1`))}, stderr ${safely(() => readlinkSync(`/proc/${pid}/fd/2`))}`;
}

/** Those of `pids` still running after `timeoutMs`, by name. */
async function gone(pids: number[], timeoutMs = STOP_BOUND_MS): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(stillRunning);
    if (alive.length === 0 || Date.now() > deadline) {
      return alive.map((pid) => `${processNames.get(pid) ?? 'process'} (pid ${pid}; ${timeoutMs > 0 ? kernelView(pid) : 'running'})`);
    }
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

/** The launcher, the database and the three apps, from the launcher's own lines. */
function platformPids(launcher: AppProcess): number[] {
  processNames.set(launcher.child.pid as number, 'the launcher');
  const remember = (pid: number) => {
    const startedAt = procStat(pid)?.startedAt;
    if (startedAt !== undefined) startTimes.set(pid, startedAt);
  };
  remember(launcher.child.pid as number);
  const children = [...launcher.output().stdout.matchAll(/^(Embedded PostgreSQL|\S+) [^\n]*?\(pid (\d+)/gm)].map((match) => {
    processNames.set(Number(match[2]), match[1]);
    remember(Number(match[2]));
    return Number(match[2]);
  });
  return [launcher.child.pid as number, ...children];
}

/** The console npm start built, at / and at any of its own routes, with the script it names. */
async function expectConsoleServed(apiUrl: string): Promise<void> {
  for (const path of ['/', '/api-keys']) {
    const page = await fetch(`${apiUrl}${path}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<div id="root"></div>');
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const code = await fetch(`${apiUrl}${script}`);
    expect(code.status).toBe(200);
    expect(code.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  }
}

/**
 * With the demo key and session `npm start` printed: subscribe a loopback receiver, create a
 * record over /api/v1, and see the webhook-worker that `npm start` runs deliver it, signed.
 */
async function expectWebhookDelivered(apiUrl: string, stdout: string): Promise<void> {
  const key = /^Demo API key \(shown once, keep it\): (mrk_\S+)$/m.exec(stdout)?.[1];
  const session = /^Demo session token for \/rpc \(30 days\): (\S+)$/m.exec(stdout)?.[1];
  expect(key && session).toBeTruthy();
  const received: Array<{ signature: string | undefined; body: string }> = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ signature: request.headers['webhook-signature'] as string | undefined, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', () => done()));
  try {
    const me = (await (await fetch(`${apiUrl}/api/v1/me`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { organization: { id: string } };
    const created = await fetch(`${apiUrl}/rpc/webhooks.endpoints.create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session}`, 'X-Organization-Id': me.organization.id, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, subscriptions: ['data-models.*'] }),
    });
    expect(created.status).toBe(200);
    const record = await fetch(`${apiUrl}/api/v1/models/contacts/records`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: { title: 'Webhook check' } }),
    });
    expect(record.status).toBe(201);
    const deadline = Date.now() + 15_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 50));
    expect(received).toHaveLength(1);
    expect(received[0].signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(JSON.parse(received[0].body)).toMatchObject({ type: 'data-models.record-created', organizationId: me.organization.id });
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((done) => receiver.close(() => done()));
  }
}

/** The demo's tasks board shows its cards in their columns, and its calendar their due dates. */
async function expectDemoViews(apiUrl: string, stdout: string): Promise<void> {
  const session = /^Demo session token for \/rpc \(30 days\): (\S+)$/m.exec(stdout)?.[1];
  const organizationId = /^Demo organization id \(X-Organization-Id\): (\S+)$/m.exec(stdout)?.[1];
  const rpc = async <T>(name: string, input: unknown): Promise<T> => {
    const response = await fetch(`${apiUrl}/rpc/${name}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session}`, 'X-Organization-Id': String(organizationId), 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const [board] = (await rpc<{ items: Array<{ id: string; name: string }> }>('kanban.boards.list', {})).items;
  const shown = await rpc<{ columns: Array<{ id: string; cards: unknown[] }> }>('kanban.boards.get', { id: board?.id });
  expect(shown.columns.map((column) => [column.id, column.cards.length])).toEqual([
    ['todo', 2],
    ['doing', 1],
    ['done', 1],
  ]);
  const [calendar] = (await rpc<{ items: Array<{ id: string }> }>('calendars.list', {})).items;
  const window = { from: new Date(Date.now() - 7 * 86_400_000).toISOString(), to: new Date(Date.now() + 7 * 86_400_000).toISOString() };
  expect((await rpc<{ items: unknown[] }>('calendars.events', { id: calendar?.id, ...window })).items).toHaveLength(4);
}

/** Records of the demo `contacts` model titled `title`, through /api/v1. */
async function contactsTitled(apiUrl: string, key: string, title: string): Promise<number> {
  const filter = encodeURIComponent(JSON.stringify({ field: 'title', op: 'eq', value: title }));
  const response = await fetch(`${apiUrl}/api/v1/models/contacts/records?filter=${filter}`, { headers: { Authorization: `Bearer ${key}` } });
  return ((await response.json()) as { items: unknown[] }).items.length;
}

/** The first line of a growing log file that matches `pattern`, waiting up to `timeoutMs` for it. */
async function lineInFile(path: string, pattern: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    const line = text.split('\n').find((candidate) => pattern.test(candidate));
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`No line matching ${pattern} in ${path} within ${timeoutMs} ms`);
    await new Promise((wake) => setTimeout(wake, 500));
  }
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    // The demo key may make 5 requests a second.
    await new Promise((wake) => setTimeout(wake, 300));
  }
  return check();
}

/**
 * With the demo session: an event automation (a contact created -> a follow-up contact) and an
 * every-minute schedule automation. The first runs through the cron-runner's automation runner
 * within seconds; the second is checked once the cron-runner's schedule task has run.
 */
async function defineAutomations(apiUrl: string, stdout: string): Promise<{ key: string }> {
  const key = /^Demo API key \(shown once, keep it\): (mrk_\S+)$/m.exec(stdout)?.[1] as string;
  const session = /^Demo session token for \/rpc \(30 days\): (\S+)$/m.exec(stdout)?.[1] as string;
  const me = (await (await fetch(`${apiUrl}/api/v1/me`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { organization: { id: string } };
  const rpc = (name: string, input: unknown) =>
    fetch(`${apiUrl}/rpc/${name}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session}`, 'X-Organization-Id': me.organization.id, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
  const onCreate = await rpc('automations.create', {
    name: 'Follow up',
    trigger: { type: 'event', eventType: 'data-models.contacts.record-created' },
    actions: [{ type: 'create-record', model: 'contacts', data: { title: 'Follow-up: {{event.payload.record.title}}' } }],
  });
  expect(onCreate.status).toBe(200);
  const everyMinute = await rpc('automations.create', {
    name: 'Every minute',
    trigger: { type: 'schedule', cron: '* * * * *', timezone: 'UTC' },
    actions: [{ type: 'create-record', model: 'contacts', data: { title: 'Scheduled check' } }],
  });
  expect(everyMinute.status).toBe(200);
  const record = await fetch(`${apiUrl}/api/v1/models/contacts/records`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ data: { title: 'Automation check' } }),
  });
  expect(record.status).toBe(201);
  expect(await eventually(async () => (await contactsTitled(apiUrl, key, 'Follow-up: Automation check')) === 1, 15_000)).toBe(true);
  return { key };
}

describe('npm start', () => {
  let dataDir: string;
  const everyPid = new Set<number>();
  // As root, the data may live outside dataDir (see postgres-user-placement.ts); the launcher says where.
  const serverDataDirs = new Set<string>();

  /** The platforms the running test started: a test that fails midway must not leave the next one a running platform on its data folder. */
  const startedByTest = new Set<number>();

  async function launch(env: Record<string, string> = {}, detached = false, sharedByTests = false): Promise<{ launcher: AppProcess; url: string; pids: number[] }> {
    const launcher = startScriptProcess(
      LAUNCHER,
      { LOCAL_DATA_DIR: env.LOCAL_DATA_DIR ?? dataDir, PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(await freePort()), ...env },
      { detached },
    );
    everyPid.add(launcher.child.pid as number);
    if (!sharedByTests) startedByTest.add(launcher.child.pid as number);
    const line = await launcher.waitForLine(READY, 90_000);
    const pids = platformPids(launcher);
    pids.forEach((pid) => everyPid.add(pid));
    if (!sharedByTests) pids.forEach((pid) => startedByTest.add(pid));
    const serverDataDir = /^Embedded PostgreSQL .*, data in (.+)\)$/m.exec(launcher.output().stdout)?.[1];
    if (serverDataDir) serverDataDirs.add(serverDataDir);
    // Five processes: the launcher, PostgreSQL, api, webhook-worker, cron-runner.
    expect(pids).toHaveLength(5);
    return { launcher, url: READY.exec(line)?.[1] as string, pids };
  }

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrp-start-'));
  });
  afterEach(() => {
    // What the test started and did not stop (it failed midway) is stopped now; a describe's shared platform is not the test's.
    for (const pid of startedByTest) if (stillRunning(pid)) process.kill(pid, 'SIGKILL');
    startedByTest.clear();
  });
  afterAll(async () => {
    // Whatever a failed test left running is ours to stop.
    for (const pid of everyPid) if (stillRunning(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    for (const dir of serverDataDirs) {
      const placedElsewhere = basename(dirname(dirname(dir))) === 'mrp-embedded-postgres';
      rmSync(placedElsewhere ? dirname(dir) : dir, { recursive: true, force: true });
    }
  });

  describe('refuses a bad setting before starting anything, in one line naming it', () => {
    it.each([
      [{ PORT: '70000' }, 'start: configuration error: PORT must be an integer from 1 to 65535, got "70000"\n'],
      [{ LOG_LEVEL: 'verbose' }, 'start: configuration error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"\n'],
      [{ EMBEDDED_POSTGRES_PORT: 'x' }, 'start: configuration error: EMBEDDED_POSTGRES_PORT must be an integer from 1 to 65535, got "x"\n'],
      [{ START_LOGS: 'both' }, 'start: configuration error: START_LOGS must be terminal or file; got "both"\n'],
    ])('%j', async (env, line) => {
      const launcher = startScriptProcess(LAUNCHER, { LOCAL_DATA_DIR: dataDir, ...env });
      const { code, stderr } = await launcher.exited;
      expect(code).toBe(1);
      expect(stderr).toBe(line);
      expect(existsSync(join(dataDir, 'local.lock'))).toBe(false);
    });
  });

  it('answers on 127.0.0.1, runs the scheduled tasks with no external cron, refuses a second start in one line naming the first (pid, address), and stops everything on SIGTERM to the launcher alone', async () => {
    const first = await launch();
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.launcher.output().stdout).toMatch(/^Demo API key \(shown once, keep it\): mrk_/m);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    await expectConsoleServed(first.url);
    const devSignIn = await fetch(`${first.url}/dev/session`);
    expect(await devSignIn.json()).toEqual({ demoEmail: 'admin@demo.example' });
    await expectWebhookDelivered(first.url, first.launcher.output().stdout);
    await expectDemoViews(first.url, first.launcher.output().stdout);
    const { key } = await defineAutomations(first.url, first.launcher.output().stdout);
    // No external cron: the cron-runner's own schedule (every minute) runs the task within the next minute.
    // A run that queued something: one from before the schedule automation existed queued nothing.
    // The automation's first slot is up to 60 s away; pg-boss sends that minute's task within its
    // cron worker's interval (5 s), and the cron-runner then fetches and runs it. A loaded CI host
    // once took more than the 10 s a 70 s wait left for that, so the wait allows 40 s.
    // In development the apps log to files under the data folder, leaving the terminal to the launcher.
    const ran = await lineInFile(
      join(dataDir, 'logs', 'cron-runner.log'),
      /^(?=.*"name":"cron-runner")(?=.*"task":"run-automation-schedules")(?=.*"processed":[1-9])(?=.*"msg":"task ran")/m,
      100_000,
    );
    expect(JSON.parse(ran)).toMatchObject({ processed: expect.any(Number), durationMs: expect.any(Number), job: expect.any(String) });
    expect(readFileSync(join(dataDir, 'logs', 'api.log'), 'utf8')).toMatch(/"msg":"request"/);
    expect(first.launcher.output().stdout).not.toMatch(/"msg":"request"/);
    expect(first.launcher.output().stdout).toMatch(/^Logs of the apps in .*logs\/ \(errors also here; START_LOGS=terminal shows every line here\)$/m);
    // The slot it queued ran: the schedule automation wrote its record.
    expect(await eventually(async () => (await contactsTitled(first.url, key, 'Scheduled check')) >= 1, 15_000)).toBe(true);

    const second = startScriptProcess(LAUNCHER, { LOCAL_DATA_DIR: dataDir, PORT: String(await freePort()) });
    const refused = await second.exited;
    expect(refused.code).toBe(1);
    const pid = first.launcher.child.pid as number;
    expect(refused.stderr).toBe(
      `start: npm start is already running here (pid ${pid}, api on ${first.url}): stop it first (Ctrl-C in its terminal, or kill ${pid})\n`,
    );
    expect(await gone(first.pids, 0)).toHaveLength(first.pids.length);

    first.launcher.child.kill('SIGTERM');
    expect((await first.launcher.exited).code).toBe(0);
    expect(await gone(first.pids)).toEqual([]);
    expect(existsSync(join(dataDir, 'local.lock'))).toBe(false);
  }, 240_000);

  describe('in production', () => {
    const secret = 'production-secret-long-enough-for-hs256';
    const cursorSecret = 'production-cursor-secret-long-enough-32';
    // A deployment of its own: the development starts above seeded theirs.
    let productionDataDir: string;
    let running: { launcher: AppProcess; url: string; pids: number[] };
    beforeAll(async () => {
      productionDataDir = mkdtempSync(join(tmpdir(), 'mrp-start-production-'));
      running = await launch({ LOCAL_DATA_DIR: productionDataDir, NODE_ENV: 'production', AUTH_JWT_SECRET: secret, CURSOR_SECRET: cursorSecret }, true, true);
    }, 120_000);
    afterAll(() => rmSync(productionDataDir, { recursive: true, force: true }));

    it('seeds no demo data and points to npm run bootstrap', () => {
      const { stdout } = running.launcher.output();
      expect(stdout).not.toMatch(/Demo/);
      expect(stdout).toContain('npm run bootstrap -- --email you@example.com --org "Your organization"');
    });

    it('serves the console, with no development sign-in', async () => {
      await expectConsoleServed(running.url);
      expect((await fetch(`${running.url}/dev/session`)).status).toBe(404);
    });

    it('lets npm run bootstrap use its embedded database, and the printed key works on the running api', async () => {
      const bootstrap = startScriptProcess(
        'tools/scripts/bootstrap.ts',
        { LOCAL_DATA_DIR: productionDataDir, NODE_ENV: 'production', AUTH_JWT_SECRET: secret, CURSOR_SECRET: cursorSecret },
        { args: ['--email', 'ops@example.com', '--org', 'Prod Org', '--enable-public-api'] },
      );
      const { code, stderr } = await bootstrap.exited;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const key = /^API key .*: (mrk_\S+)$/m.exec(bootstrap.output().stdout)?.[1];
      const me = await fetch(`${running.url}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { organization: { name: string } }).organization.name).toBe('Prod Org');
    });

    it('stops the apps and PostgreSQL when its terminal closes (SIGHUP to its process group)', async () => {
      const { launcher, pids } = running;
      process.kill(-(launcher.child.pid as number), 'SIGHUP');
      await launcher.exited;
      expect(await gone(pids)).toEqual([]);
      expect(existsSync(join(productionDataDir, 'local.lock'))).toBe(false);
    });
  });

  it('takes its apps and PostgreSQL with it when killed outright, and its stale lock does not block the next start', async () => {
    const killed = await launch();
    killed.launcher.child.kill('SIGKILL');
    // Each app stops within its own bound (SHUTDOWN_TIMEOUT_SECONDS and 5 s: 15 s) once it hears the
    // launcher is gone; on a machine loaded by other suites that took more than 30 s (two CI runs).
    expect(await gone(killed.pids, KILLED_STOP_BOUND_MS)).toEqual([]);
    const lock = JSON.parse(readFileSync(join(dataDir, 'local.lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(killed.launcher.child.pid);

    const next = await launch();
    expect((await fetch(`${next.url}/health`)).status).toBe(200);
    next.launcher.child.kill('SIGTERM');
    expect((await next.launcher.exited).code).toBe(0);
    expect(await gone(next.pids)).toEqual([]);
  }, 300_000);
});
