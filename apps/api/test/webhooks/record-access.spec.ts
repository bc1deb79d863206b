import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, queryDatabase, type Member, type OrganizationWithKey } from '../support/public-api-fixtures';

interface CreatedEndpoint {
  endpoint: { id: string; principalId: string | null };
}
interface DeliveryWithEvent {
  status: string;
  event: { payload?: { record?: { data?: Record<string, unknown> } } };
  payloadWithheld: boolean;
}

const HIDDEN = 'salary of the chief: 250k';

/** A webhook endpoint acts as a principal, and record events reach it only when that principal may read the record. */
describe('webhooks and row-level access', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let hooker: Member;
  let hookerId: string;
  let ownerId: string;
  let robotId: string;
  let restrictedId: string;
  let openId: string;

  beforeAll(async () => {
    api = await startTestApi({ FEATURE_FLAGS: 'public-api.service-accounts=true' });
    org = await createOrganizationWithKey(api);
    const finance = await org.rpc<{ id: string }>('rbac.roles.create', { key: 'finance', name: 'Finance', permissions: ['records.read'] });
    await org.rpc('rbac.roles.create', { key: 'integrator', name: 'Integrator', permissions: ['webhooks.manage', 'records.read', 'data-models.read'] });
    hooker = await org.addMember(['integrator'], 'integrator');
    hookerId = (await whoAmI(hooker)).userId;
    ownerId = (await whoAmI(org.owner)).userId;
    await org.rpc('rbac.roles.assign', { userId: ownerId, roleKey: 'finance' });
    restrictedId = (await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Payroll', notes: 'x' } })).id;
    await org.rpc('records.setAccess', { id: restrictedId, roleIds: [finance.id] });
    openId = (await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Inbox', notes: 'x' } })).id;
    robotId = (await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Finance robot', roleKeys: ['finance'] })).id;
  });
  afterAll(async () => {
    await api.close();
  });

  const call = (name: string, input: unknown, who: Member) => api.request(`/rpc/${name}`, { method: 'POST', json: input, token: who.session, organizationId: org.organizationId });
  async function whoAmI(who: Member): Promise<{ userId: string }> {
    const response = await api.request('/rpc/me.identity', { method: 'POST', json: {}, token: who.session, organizationId: org.organizationId });
    return { userId: ((await response.json()) as { principal: { id: string } }).principal.id };
  }
  const createEndpoint = async (who: Member, input: Record<string, unknown> = {}) => {
    const response = await call('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/hook', subscriptions: ['data-models.*'], ...input }, who);
    expect(response.status).toBe(200);
    return ((await response.json()) as CreatedEndpoint).endpoint;
  };
  const deliveriesOf = (endpointId: string) =>
    queryDatabase<{ id: string; status: string; body: string; event_type: string }>(
      api,
      `SELECT d.id, d.status, b.body, d.event_type FROM webhook_deliveries d JOIN webhook_event_bodies b ON b.event_id = d.event_id
        WHERE d.endpoint_id = $1 ORDER BY d.created_at, d.id`,
      [endpointId],
    );

  it('an endpoint acts as its creator by default, shown as principalId', async () => {
    const endpoint = await createEndpoint(hooker);
    expect(endpoint.principalId).toBe(hookerId);
    const listed = (await (await call('webhooks.endpoints.list', {}, hooker)).json()) as { items: Array<{ id: string; principalId: string }> };
    expect(listed.items.find((item) => item.id === endpoint.id)?.principalId).toBe(hookerId);
  });

  it('does not send a restricted record to an endpoint whose principal lacks its role: the delivery is filtered, without the payload', async () => {
    const theirs = await createEndpoint(hooker);
    const owners = await createEndpoint(org.owner);
    await org.rpc('records.update', { id: restrictedId, data: { notes: HIDDEN } });
    await org.rpc('records.update', { id: openId, data: { notes: 'public' } });

    const [filtered, open] = await deliveriesOf(theirs.id);
    expect(filtered.status).toBe('filtered');
    // The event's body is stored once, for the owner's endpoint too; a filtered delivery never shows
    // its payload, not even to someone who may read the record.
    const filteredAsOwner = await org.rpc<DeliveryWithEvent>('webhooks.deliveries.get', { id: filtered.id });
    expect(filteredAsOwner.payloadWithheld).toBe(true);
    expect(filteredAsOwner.event).not.toHaveProperty('payload');
    expect(JSON.stringify(filteredAsOwner)).not.toContain(HIDDEN);
    expect(open.status).toBe('pending');
    expect(open.body).toContain('public');
    // Nothing filtered is ever claimed and sent.
    await expectError(await call('webhooks.deliveries.redeliver', { id: filtered.id }, hooker), 409, 'conflict');

    const ownerDeliveries = await deliveriesOf(owners.id);
    expect(ownerDeliveries.map((delivery) => delivery.status)).toEqual(['pending', 'pending']);
    expect(ownerDeliveries[0].body).toContain(HIDDEN);

    // The delivery log shows the payload only to those who may read the record.
    const asHooker = (await (await call('webhooks.deliveries.get', { id: ownerDeliveries[0].id }, hooker)).json()) as DeliveryWithEvent;
    expect(asHooker.payloadWithheld).toBe(true);
    expect(JSON.stringify(asHooker)).not.toContain(HIDDEN);
    const asOwner = await org.rpc<DeliveryWithEvent>('webhooks.deliveries.get', { id: ownerDeliveries[0].id });
    expect(asOwner.payloadWithheld).toBe(false);
    expect(asOwner.event.payload?.record?.data?.notes).toBe(HIDDEN);
    const openAsHooker = (await (await call('webhooks.deliveries.get', { id: ownerDeliveries[1].id }, hooker)).json()) as DeliveryWithEvent;
    expect(openAsHooker.event.payload?.record?.data?.notes).toBe('public');
  });

  it('follows the principal’s roles as they change', async () => {
    const endpoint = await createEndpoint(hooker);
    await org.rpc('rbac.roles.assign', { userId: hookerId, roleKey: 'finance' });
    await org.rpc('records.update', { id: restrictedId, data: { notes: 'granted' } });
    await org.rpc('rbac.roles.revoke', { userId: hookerId, roleKey: 'finance' });
    await org.rpc('records.update', { id: restrictedId, data: { notes: 'revoked' } });
    expect((await deliveriesOf(endpoint.id)).map((delivery) => delivery.status)).toEqual(['pending', 'filtered']);
  });

  it('refuses an endpoint acting as a service account, or redirecting one, beyond the caller’s row-access roles', async () => {
    const error = await expectError(await call('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/hook', subscriptions: ['*'], principalId: robotId }, hooker), 403, 'forbidden');
    expect(error.message).toContain('finance');
    const owners = await createEndpoint(org.owner);
    await expectError(await call('webhooks.endpoints.update', { id: owners.id, url: 'http://127.0.0.1:10/mine' }, hooker), 403, 'forbidden');
    await expectError(await call('webhooks.endpoints.update', { id: owners.id, principalId: robotId }, hooker), 403, 'forbidden');
    // The owner holds finance, so the robot may be hers to hand an endpoint to.
    const robots = await createEndpoint(org.owner, { principalId: robotId });
    expect(robots.principalId).toBe(robotId);
    await expectError(await call('webhooks.endpoints.create', { url: 'http://127.0.0.1:9/hook', subscriptions: ['*'], principalId: ownerId }, hooker), 400, 'validation_failed');
  });
});
