import { PLATFORM_ADMIN, newHuman, sessionToken, startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, queryDatabase, rpcOk } from '../support/public-api-fixtures';

interface EndpointView {
  id: string;
  organizationId: string | null;
  url: string;
  description: string;
  subscriptions: string[];
  state: 'enabled' | 'disabled';
  disabledReason: string | null;
  disabledAt: string | null;
  consecutiveFailures: number;
  signingSecretStored: boolean;
  previousSecretExpiresAt: string | null;
}
interface ErrorBody {
  error: { code: string; message: string; details?: Array<{ field: string; code: string; message: string }> };
}

describe('webhook endpoints', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: 'a'.repeat(64) });
  });
  afterAll(() => api.close());

  it('creates, lists, updates, disables, enables, rotates and deletes an endpoint', async () => {
    const org = await createOrganizationWithKey(api);
    const created = await org.rpc<{ endpoint: EndpointView; secret: string }>('webhooks.endpoints.create', {
      url: 'http://127.0.0.1:9/hook',
      description: 'Orders to the ERP',
      subscriptions: ['data-models.*', 'rbac.role-created'],
    });
    expect(created.endpoint).toMatchObject({
      organizationId: org.organizationId,
      url: 'http://127.0.0.1:9/hook',
      description: 'Orders to the ERP',
      subscriptions: ['data-models.*', 'rbac.role-created'],
      state: 'enabled',
      consecutiveFailures: 0,
      signingSecretStored: true,
      previousSecretExpiresAt: null,
    });
    const { items } = await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {});
    expect(items).toEqual([created.endpoint]);

    const updated = await org.rpc<EndpointView>('webhooks.endpoints.update', { id: created.endpoint.id, subscriptions: ['*'], description: 'All' });
    expect(updated).toMatchObject({ subscriptions: ['*'], description: 'All', url: 'http://127.0.0.1:9/hook' });

    const disabled = await org.rpc<EndpointView>('webhooks.endpoints.disable', { id: created.endpoint.id, reason: 'maintenance' });
    expect(disabled).toMatchObject({ state: 'disabled', disabledReason: 'maintenance' });
    expect(disabled.disabledAt).not.toBeNull();
    const enabled = await org.rpc<EndpointView>('webhooks.endpoints.enable', { id: created.endpoint.id });
    expect(enabled).toMatchObject({ state: 'enabled', disabledReason: null, disabledAt: null, consecutiveFailures: 0 });

    const rotated = await org.rpc<{ endpoint: EndpointView; secret: string }>('webhooks.endpoints.rotateSecret', { id: created.endpoint.id, overlapSeconds: 60 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.endpoint.previousSecretExpiresAt as string) - Date.now()).toBeGreaterThan(50_000);
    const rotatedAgain = await org.rpc<{ endpoint: EndpointView }>('webhooks.endpoints.rotateSecret', { id: created.endpoint.id });
    expect(rotatedAgain.endpoint.previousSecretExpiresAt).toBeNull();

    expect(await org.rpc('webhooks.endpoints.delete', { id: created.endpoint.id })).toEqual({ id: created.endpoint.id, deleted: true });
    expect((await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {})).items).toEqual([]);
  });

  it('refuses bad URLs and subscriptions with a 400 naming the field, and writes nothing', async () => {
    const org = await createOrganizationWithKey(api);
    const attempt = (input: Record<string, unknown>) =>
      api.rpc<ErrorBody>('webhooks.endpoints.create', { subscriptions: ['*'], url: 'http://127.0.0.1:9/', ...input }, { token: org.owner.session, organizationId: org.organizationId });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: 'ftp://127.0.0.1/' }, 'url'],
      [{ url: 'http://93.184.216.34/hook' }, 'url'], // plain http to a public address, even in development
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ url: 'http://user:pass@127.0.0.1/' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ subscriptions: ['data-models.record-creatd'] }, 'subscriptions/0'],
      [{ subscriptions: ['*', 'data-models.'] }, 'subscriptions/1'],
      [{ subscriptions: [] }, 'subscriptions'],
    ];
    for (const [input, field] of cases) {
      const { status, body } = await attempt(input);
      expect([JSON.stringify(input), status]).toEqual([JSON.stringify(input), 400]);
      expect(body.error.details?.map((detail) => detail.field)).toContain(field);
    }
    const rows = await queryDatabase(api, 'SELECT 1 FROM webhook_endpoints WHERE organization_id = $1', [org.organizationId]);
    expect(rows).toHaveLength(0);
  });

  it('needs webhooks.manage in the organization; another organization\'s endpoint is missing', async () => {
    const org = await createOrganizationWithKey(api);
    const other = await createOrganizationWithKey(api);
    const { endpoint } = await org.rpc<{ endpoint: EndpointView }>('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/', subscriptions: ['*'] });
    const member = await org.addMember(['member']);
    const denied = await api.rpc<ErrorBody>('webhooks.endpoints.list', {}, { token: member.session, organizationId: org.organizationId });
    expect(denied.status).toBe(403);

    for (const name of ['webhooks.endpoints.update', 'webhooks.endpoints.delete', 'webhooks.endpoints.enable', 'webhooks.endpoints.rotateSecret']) {
      const { status } = await api.rpc(name, { id: endpoint.id }, { token: other.owner.session, organizationId: other.organizationId });
      expect([name, status]).toEqual([name, 404]);
    }
    expect((await other.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {})).items).toEqual([]);
    const stillThere = await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {});
    expect(stillThere.items.map((item) => item.id)).toEqual([endpoint.id]);
  });

  it('keeps platform-wide endpoints to platform admins', async () => {
    const admin = await sessionToken(PLATFORM_ADMIN);
    const org = await createOrganizationWithKey(api);
    const refused = await api.rpc<ErrorBody>('webhooks.endpoints.create', { platform: true, url: 'http://127.0.0.1:9/', subscriptions: ['*'] }, { token: org.owner.session, organizationId: org.organizationId });
    expect(refused.status).toBe(403);
    const created = await rpcOk<{ endpoint: EndpointView }>(api, 'webhooks.endpoints.create', { platform: true, url: 'http://127.0.0.1:9/', subscriptions: ['*'] }, { token: admin });
    expect(created.endpoint.organizationId).toBeNull();
    const { items } = await rpcOk<{ items: EndpointView[] }>(api, 'webhooks.endpoints.list', { platform: true }, { token: admin });
    expect(items.map((item) => item.id)).toContain(created.endpoint.id);
    // An organization's list never shows them.
    expect((await org.rpc<{ items: EndpointView[] }>('webhooks.endpoints.list', {})).items).toEqual([]);
    await rpcOk(api, 'webhooks.endpoints.delete', { platform: true, id: created.endpoint.id }, { token: admin });
  });

  it('allows at most 50 endpoints per organization', async () => {
    const org = await createOrganizationWithKey(api);
    await Promise.all(
      Array.from({ length: 50 }, (_value, index) => org.rpc('webhooks.endpoints.create', { url: `http://127.0.0.1:9/${index}`, subscriptions: ['*'] })),
    );
    const { status, body } = await api.rpc<ErrorBody>('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/51', subscriptions: ['*'] }, { token: org.owner.session, organizationId: org.organizationId });
    expect(status).toBe(409);
    expect(body.error.message).toContain('At most 50');
  });

  it('is not served to anyone: the worker\'s own procedure', async () => {
    const user = newHuman('curious');
    const { status } = await api.rpc('webhooks.deliveries.recordAttempts', { attempts: [] }, { token: await sessionToken(user) });
    expect(status).toBe(404);
  });
});
