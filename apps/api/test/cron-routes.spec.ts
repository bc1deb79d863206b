import type { ScheduledTask } from '@mrp/runtime';
import { errorOf, startTestApi, type TestApi } from './support/test-api';
import { capturedLogger } from '@mrp/platform/testing';

const CRON_SECRET = 'cron-secret-for-tests-0123456789';
const METHODS = ['GET', 'POST'] as const;

interface Answer {
  task: string;
  method: string;
  status: number;
  body: unknown;
  wwwAuthenticate?: string | null;
}

async function call(api: TestApi, task: string, method: string, authorization?: string): Promise<Answer> {
  const response = await api.request(`/cron/${task}`, { method, headers: authorization === undefined ? {} : { Authorization: authorization } });
  return { task, method, status: response.status, body: await response.json(), wwwAuthenticate: response.headers.get('www-authenticate') };
}

describe('/cron/<task>', () => {
  let api: TestApi;
  let tasks: string[];
  const { logger, lines } = capturedLogger();
  beforeAll(async () => {
    api = await startTestApi({}, { logger });
    tasks = api.runtime.tasks.map((task) => task.name);
  });
  afterAll(() => api.close());

  it('serves every scheduled task', () => {
    expect(tasks).toEqual(expect.arrayContaining(['sweep-webhook-deliveries', 'run-automation-schedules', 'send-calendar-reminders', 'process-account-deletions']));
  });

  it('runs every task on GET and POST with the secret, answering { task, processed }', async () => {
    for (const task of tasks) {
      for (const method of METHODS) {
        const answer = await call(api, task, method, `Bearer ${CRON_SECRET}`);
        expect(answer).toEqual({ task, method, status: 200, body: { task, processed: expect.any(Number) }, wwwAuthenticate: null });
        const { processed } = answer.body as { processed: number };
        expect({ task, processed, valid: Number.isInteger(processed) && processed >= 0 }).toEqual({ task, processed, valid: true });
      }
    }
  });

  it('answers 200 to two calls of one task at once', async () => {
    for (const task of tasks) {
      const answers = await Promise.all(METHODS.map((method) => call(api, task, method, `Bearer ${CRON_SECRET}`)));
      expect(answers.map(({ status, body }) => ({ status, body }))).toEqual(
        METHODS.map(() => ({ status: 200, body: { task, processed: expect.any(Number) } })),
      );
    }
  });

  it.each([
    ['a wrong secret', `Bearer ${CRON_SECRET}-not`],
    ['a secret of another scheme', `Basic ${CRON_SECRET}`],
    ['no Authorization header', undefined],
  ])('answers 401 with WWW-Authenticate: Bearer to %s, for every task and for an unknown one', async (_case, authorization) => {
    for (const task of [...tasks, 'no-such-task']) {
      for (const method of METHODS) {
        const answer = await call(api, task, method, authorization);
        expect(answer).toEqual({
          task,
          method,
          status: 401,
          body: { error: { code: 'unauthorized', message: expect.any(String), requestId: expect.any(String) } },
          wwwAuthenticate: 'Bearer',
        });
      }
    }
  });

  it('answers 404 to an unknown task once the secret is right', async () => {
    const response = await api.request('/cron/no-such-task', { method: 'POST', headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toMatchObject({ code: 'not_found' });
  });

  it('answers 500 internal_error without a stack to a task that throws, and logs it once', async () => {
    const failing: ScheduledTask = {
      name: 'fails-for-the-test',
      schedule: '* * * * *',
      description: 'throws',
      run: async () => {
        throw new Error('task blew up at /srv/secret/path.ts:12');
      },
    };
    (api.runtime as { tasks: readonly ScheduledTask[] }).tasks = [...api.runtime.tasks, failing];
    const response = await api.request(`/cron/${failing.name}`, { method: 'POST', headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal_error', message: expect.any(String), requestId: expect.any(String) } });
    expect(text).not.toMatch(/blew up|secret\/path|at /);
    expect(lines.filter((line) => (line.err as { message?: string } | undefined)?.message?.includes('blew up'))).toHaveLength(1);
  });
});

describe('/cron/<task> without CRON_SECRET', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ CRON_SECRET: '' });
  });
  afterAll(() => api.close());

  it('answers 503 service_unavailable for every task, with or without a secret', async () => {
    for (const task of api.runtime.tasks.map(({ name }) => name)) {
      for (const method of METHODS) {
        for (const authorization of [`Bearer ${CRON_SECRET}`, undefined]) {
          const answer = await call(api, task, method, authorization);
          expect({ task, method, status: answer.status, body: answer.body }).toEqual({
            task,
            method,
            status: 503,
            body: { error: { code: 'service_unavailable', message: expect.stringContaining('CRON_SECRET'), requestId: expect.any(String) } },
          });
        }
      }
    }
  });
});
