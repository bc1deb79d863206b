import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';

const CRON_SECRET = 'cron-secret-for-tests-0123456789';

/** No runner runs here: the task route queues the slots and runs them itself (the fallback). */
describe('/cron/run-automation-schedules', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  beforeAll(async () => {
    api = await startTestApi();
    org = await createOrganizationWithKey(api);
  });
  afterAll(async () => {
    await api.close();
  });

  const runTask = () => api.request('/cron/run-automation-schedules', { method: 'POST', headers: { Authorization: `Bearer ${CRON_SECRET}` } });

  it('queues each due slot once, even with two runs at once, and runs it as the owner', async () => {
    const ids: string[] = [];
    for (const name of ['Every minute', 'Hourly', 'Weekdays']) {
      const cron = { 'Every minute': '* * * * *', Hourly: '15 * * * *', Weekdays: '0 9 * * 1-5' }[name]!;
      const automation = await org.rpc<{ id: string }>('automations.create', {
        name,
        trigger: { type: 'schedule', cron, timezone: 'America/New_York' },
        actions: [{ type: 'create-record', model: org.modelKey, data: { title: `${name} at {{input.scheduledFor}}` } }],
      });
      ids.push(automation.id);
    }
    const off = await org.rpc<{ id: string }>('automations.create', {
      name: 'Off',
      enabled: false,
      trigger: { type: 'schedule', cron: '* * * * *', timezone: 'UTC' },
      actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'Never' } }],
    });
    // Their slots came a while ago (the scheduler was down): each gets one run, not one per missed slot.
    await queryDatabase(api, "UPDATE automations SET next_run_at = now() - interval '3 hours' WHERE organization_id = $1", [org.organizationId]);

    const [first, second] = await Promise.all([runTask(), runTask()]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const results = [(await first.json()) as { task: string; processed: number }, (await second.json()) as { task: string; processed: number }];
    expect(results.map((result) => result.task)).toEqual(['run-automation-schedules', 'run-automation-schedules']);
    expect(results[0].processed + results[1].processed).toBe(3);

    const runs = await queryDatabase<{ automation_id: string; status: string; trigger: string }>(
      api,
      'SELECT automation_id, status, trigger FROM automation_runs ORDER BY automation_id',
    );
    expect(runs).toEqual(ids.sort().map((id) => ({ automation_id: id, status: 'succeeded', trigger: 'schedule' })));
    const titles = (await org.rpc<{ items: Array<{ title: string; createdBy: string }> }>('records.list', { model: org.modelKey })).items;
    expect(titles).toHaveLength(3);
    expect(titles.every((record) => record.createdBy === org.owner.user.sub && / at \d{4}-\d\d-\d\dT/.test(record.title))).toBe(true);

    const schedules = await queryDatabase<{ id: string; next_run_at: Date | null }>(api, 'SELECT id, next_run_at FROM automations WHERE id = ANY($1)', [ids]);
    expect(schedules.every((schedule) => schedule.next_run_at !== null && schedule.next_run_at.getTime() > Date.now())).toBe(true);
    expect(await queryDatabase(api, 'SELECT id FROM automation_runs WHERE automation_id = $1', [off.id])).toEqual([]);

    // Nothing is due any more.
    expect(((await (await runTask()).json()) as { processed: number }).processed).toBe(0);
  });
});
