import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';

interface HttpAutomation {
  id: string;
  secret: string;
  trigger: { type: string; secretPrefix: string };
}

describe('POST /hooks/automation/:id', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let automation: HttpAutomation;

  beforeAll(async () => {
    api = await startTestApi({ TRUST_PROXY: 'true' });
    org = await createOrganizationWithKey(api);
    automation = await org.rpc<HttpAutomation>('automations.create', {
      name: 'Inbound order',
      trigger: { type: 'http' },
      actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'Order {{input.ref}}' } }],
    });
  });
  afterAll(async () => {
    await api.close();
  });

  // Each test calls from its own address, so the per-address lock of one does not touch the others.
  let addressCounter = 0;
  const hook = (id: string, { secret, body, contentType = 'application/json', address }: { secret?: string; body?: string; contentType?: string; address?: string } = {}) => {
    addressCounter += 1;
    const headers: Record<string, string> = { 'X-Forwarded-For': address ?? `10.0.0.${addressCounter}` };
    if (secret !== undefined) headers['Authorization'] = `Bearer ${secret}`;
    if (body !== undefined) headers['Content-Type'] = contentType;
    return api.request(`/hooks/automation/${id}`, { method: 'POST', headers, body });
  };
  const runsOf = (id: string) => queryDatabase<{ id: string; input: unknown; trigger: string; status: string }>(api, 'SELECT id, input, trigger, status FROM automation_runs WHERE automation_id = $1 ORDER BY id', [id]);

  it('shows the secret once and keeps only its hash', async () => {
    expect(automation.secret).toMatch(/^ahk_[A-Za-z0-9_-]{43}$/);
    expect(automation.trigger.secretPrefix).toBe(automation.secret.slice(0, 10));
    const fetched = await org.rpc<Record<string, unknown>>('automations.get', { id: automation.id });
    expect(JSON.stringify(fetched)).not.toContain(automation.secret);
    const [row] = await queryDatabase<{ hook_secret_hash: string }>(api, 'SELECT hook_secret_hash FROM automations WHERE id = $1', [automation.id]);
    expect(row.hook_secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('queues a run with the body as its input: 202 { runId }', async () => {
    const response = await hook(automation.id, { secret: automation.secret, body: JSON.stringify({ ref: 'H-1', lines: [1, 2] }) });
    expect(response.status).toBe(202);
    const { runId } = (await response.json()) as { runId: string };
    const runs = await runsOf(automation.id);
    expect(runs).toEqual([{ id: runId, input: { ref: 'H-1', lines: [1, 2] }, trigger: 'http', status: 'queued' }]);
    // A bare POST is an empty input.
    expect((await hook(automation.id, { secret: automation.secret })).status).toBe(202);
    expect((await runsOf(automation.id)).at(-1)?.input).toEqual({});
  });

  it('answers 401 to a wrong or missing secret, 404 to unknown or non-http automations', async () => {
    await expectError(await hook(automation.id, {}), 401, 'unauthorized');
    await expectError(await hook(automation.id, { secret: `${automation.secret.slice(0, -1)}x` }), 401, 'unauthorized');
    await expectError(await hook(automation.id, { secret: 'whatever' }), 401, 'unauthorized');
    await expectError(await hook('01a20a8e-0000-7000-8000-000000000000', { secret: automation.secret }), 404, 'not_found');
    await expectError(await hook('not-a-uuid', { secret: automation.secret }), 404, 'not_found');
    const scheduled = await org.rpc<{ id: string }>('automations.create', {
      name: 'Nightly',
      trigger: { type: 'schedule', cron: '0 2 * * *', timezone: 'UTC' },
      actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'Nightly' } }],
    });
    await expectError(await hook(scheduled.id, { secret: automation.secret }), 404, 'not_found');
  });

  it('answers 400 to a body that is not a JSON object, 415 to one that is not JSON, 413 over 1 MiB', async () => {
    const before = (await runsOf(automation.id)).length;
    for (const body of ['[1,2]', '"text"', '42', 'null', '{"broken":']) {
      await expectError(await hook(automation.id, { secret: automation.secret, body }), 400, 'bad_request');
    }
    await expectError(await hook(automation.id, { secret: automation.secret, body: '{"a":"\\u0000"}' }), 400, 'validation_failed');
    await expectError(await hook(automation.id, { secret: automation.secret, body: 'ref=1', contentType: 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    await expectError(await hook(automation.id, { secret: automation.secret, body: JSON.stringify({ blob: 'x'.repeat(1024 * 1024) }) }), 413, 'payload_too_large');
    expect(await runsOf(automation.id)).toHaveLength(before);
  });

  it('answers 409 while the automation is disabled, after the secret is proven', async () => {
    await org.rpc('automations.update', { id: automation.id, enabled: false });
    await expectError(await hook(automation.id, { secret: automation.secret, body: '{}' }), 409, 'conflict');
    await expectError(await hook(automation.id, { secret: 'wrong', body: '{}' }), 401, 'unauthorized');
    await org.rpc('automations.update', { id: automation.id, enabled: true });
    expect((await hook(automation.id, { secret: automation.secret, body: '{}' })).status).toBe(202);
  });

  it('rotating the secret ends the old one at once', async () => {
    const rotated = await org.rpc<HttpAutomation>('automations.rotateSecret', { id: automation.id });
    expect(rotated.secret).not.toBe(automation.secret);
    await expectError(await hook(automation.id, { secret: automation.secret }), 401, 'unauthorized');
    expect((await hook(automation.id, { secret: rotated.secret })).status).toBe(202);
    automation = rotated;
  });

  describe('wrong secrets are slowed, the right one never', () => {
    it('after 10 wrong secrets a minute from an address, its next wrong one is 429 with Retry-After; the right one still runs', async () => {
      const address = '192.0.2.77';
      for (let attempt = 0; attempt < 10; attempt++) {
        await expectError(await hook(automation.id, { secret: 'guess', address }), 401, 'unauthorized');
      }
      const locked = await hook(automation.id, { secret: 'guess', address });
      await expectError(locked, 429, 'rate_limited');
      expect(Number(locked.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
      await expectError(await hook(automation.id, { address }), 429, 'rate_limited');
      expect((await hook(automation.id, { secret: automation.secret, address })).status).toBe(202);
      // Another address is not slowed by this one.
      await expectError(await hook(automation.id, { secret: 'guess', address: '192.0.2.78' }), 401, 'unauthorized');
    });

    it('after 30 wrong secrets a minute for an automation, from three addresses, wrong ones are 429 from anywhere; the right one still runs', async () => {
      const target = await org.rpc<HttpAutomation>('automations.create', {
        name: 'Targeted',
        trigger: { type: 'http' },
        actions: [{ type: 'create-record', model: org.modelKey, data: { title: 'Targeted' } }],
      });
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        for (let attempt = 0; attempt < 10; attempt++) {
          await expectError(await hook(target.id, { secret: 'guess', address }), 401, 'unauthorized');
        }
      }
      await expectError(await hook(target.id, { secret: 'guess', address: '198.51.100.4' }), 429, 'rate_limited');
      expect((await hook(target.id, { secret: target.secret, address: '198.51.100.1' })).status).toBe(202);
      expect((await hook(target.id, { secret: target.secret, address: '203.0.113.9' })).status).toBe(202);
    });
  });
});
