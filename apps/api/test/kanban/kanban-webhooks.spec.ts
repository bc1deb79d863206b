import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const KANBAN_EVENTS = [
  'kanban.board-created',
  'kanban.column-created',
  'kanban.card-created',
  'kanban.card-updated',
  'kanban.card-moved',
  'kanban.card-deleted',
  'kanban.card-assigned',
];

describe('kanban events reach webhooks', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let receiver: WebhookReceiver;
  let close: () => Promise<void>;

  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('hex'), WEBHOOK_TIMEOUT_SECONDS: '1' });
    const worker = api.runtime.webhooks.createWorker(api.runtime.invocationDeps, { pollIntervalMs: 500 });
    await api.runtime.jobs.start();
    worker.start();
    receiver = await startWebhookReceiver();
    close = async () => {
      await worker.stop();
      await receiver.close();
      await api.close();
    };
    org = await createOrganizationWithKey(api);
  });
  afterAll(() => close());

  it('delivers each kanban event of the catalog, once per change, to an endpoint subscribed to kanban.*', async () => {
    const { endpoint } = await org.rpc<{ endpoint: { id: string } }>('webhooks.endpoints.create', { url: `${receiver.url}/hooks`, subscriptions: ['kanban.*'] });
    const member = await org.addMember(['member']);
    const board = await org.rpc<{ id: string }>('kanban.boards.create', { name: 'Hooked', modelKey: org.modelKey, fieldKey: 'status' });
    await org.rpc('kanban.columns.create', { boardId: board.id, id: 'doing', label: 'Doing' });
    const card = await org.rpc<{ id: string }>('records.create', { model: org.modelKey, data: { title: 'Hooked card', status: 'open' } });
    await publicApi(api, org.key.token).patch(`/records/${card.id}`, { data: { notes: 'changed' } });
    await org.rpc('kanban.cards.move', { boardId: board.id, recordId: card.id, column: 'doing' });
    await org.rpc('kanban.cards.assign', { boardId: board.id, recordId: card.id, userIds: [member.user.sub] });
    await org.rpc('records.delete', { id: card.id });

    const delivered = (await receiver.waitFor(KANBAN_EVENTS.length)).map((request) => JSON.parse(request.rawBody) as EventEnvelope);
    expect(delivered.map((event) => event.type).sort()).toEqual([...KANBAN_EVENTS].sort());
    for (const event of delivered) expect(event.organizationId).toBe(org.organizationId);
    expect(delivered.find((event) => event.type === 'kanban.card-moved')?.payload).toEqual({
      boardId: board.id,
      cardId: card.id,
      fromColumnId: 'open',
      toColumnId: 'doing',
      modelKey: org.modelKey,
    });
    // The outbox queued exactly one delivery per change (written with each change's transaction).
    const queued = await queryDatabase<{ event_type: string }>(api, 'SELECT event_type FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id]);
    expect(queued.map((row) => row.event_type).sort()).toEqual([...KANBAN_EVENTS].sort());
  });
});
