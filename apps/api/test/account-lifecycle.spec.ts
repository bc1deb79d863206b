import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase } from './support/public-api-fixtures';

const CRON_SECRET = 'cron-secret-for-tests-0123456789';

describe('account lifecycle over HTTP', () => {
  let api: TestApi;
  const events: EventEnvelope[] = [];
  beforeAll(async () => {
    api = await startTestApi({ ACCOUNT_DELETION_GRACE_DAYS: '0' });
    api.runtime.bus.subscribe('*', (event) => void events.push(event));
  });
  afterAll(() => api.close());

  const processDeletions = async () => {
    const response = await api.request('/cron/process-account-deletions', { method: 'POST', headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { processed: number }).processed;
  };

  it('request, cancel, request again; the task deletes the account once: keys and sessions refused, memberships gone, profile anonymised', async () => {
    const org = await createOrganizationWithKey(api);
    const member = await org.addMember(['admin'], 'leaving');
    const key = await org.createKey({ name: 'Personal' }, member.session);
    const automation = await org.rpc<{ id: string }>(
      'automations.create',
      { name: 'Theirs', trigger: { type: 'http' }, actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'x' } }] },
      member.session,
    );
    const staying = await org.rpc<{ id: string }>('automations.create', {
      name: 'The owner\'s',
      trigger: { type: 'http' },
      actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'x' } }],
    });
    await expect(publicApi(api, key.token).get('/me')).resolves.toMatchObject({ status: 200 });
    const asMember = (name: string) => api.rpc<{ deletionScheduledFor: string | null }>(name, {}, { token: member.session });

    const requested = await asMember('users.requestDeletion');
    expect(requested.status).toBe(200);
    expect(requested.body.deletionScheduledFor).not.toBeNull();
    expect((await asMember('users.cancelDeletion')).body.deletionScheduledFor).toBeNull();
    // Canceled: the task leaves the account alone.
    await expect(processDeletions()).resolves.toBe(0);
    expect((await asMember('users.requestDeletion')).body.deletionScheduledFor).not.toBeNull();

    await api.runtime.bus.idle();
    events.length = 0;
    const runs = await Promise.all([processDeletions(), processDeletions()]);
    expect(runs[0] + runs[1]).toBe(1);

    expect((await publicApi(api, key.token).get('/me')).status).toBe(401);
    const session = await api.rpc('me.get', {}, { token: member.session });
    expect(session.status).toBe(401);
    await expect(queryDatabase(api, 'SELECT organization_id FROM memberships WHERE user_id = $1', [member.user.sub])).resolves.toEqual([]);
    const [profile] = await queryDatabase<{ display_name: string; email: string; email_verified: boolean }>(
      api,
      'SELECT display_name, email, email_verified FROM users WHERE id = $1',
      [member.user.sub],
    );
    expect(profile).toEqual({ display_name: 'Deleted user', email: expect.stringMatching(/@deleted\.invalid$/), email_verified: false });
    // The organization carries on without them; the automations they owned are off.
    await expect(publicApi(api, org.key.token).get('/me')).resolves.toMatchObject({ status: 200 });
    expect((await org.rpc<{ enabled: boolean }>('automations.get', { id: automation.id })).enabled).toBe(false);
    expect((await org.rpc<{ enabled: boolean }>('automations.get', { id: staying.id })).enabled).toBe(true);

    await api.runtime.bus.idle();
    expect(events.filter((event) => event.type === 'user.deleted')).toEqual([
      expect.objectContaining({ userId: member.user.sub, payload: { userId: member.user.sub, deletedBy: member.user.sub } }),
    ]);
    expect(events.filter((event) => event.type === 'organization.member-removed')).toEqual([
      expect.objectContaining({
        organizationId: org.organizationId,
        payload: { organizationId: org.organizationId, userId: member.user.sub, removedBy: member.user.sub },
      }),
    ]);
  });
});
