import type { EventEnvelope } from '@mrp/platform';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, expectError, publicApi, queryDatabase, type OrganizationWithKey } from '../support/public-api-fixtures';
import { finishedRuns, startTestRunner, type TestRunner } from '../support/automation-runs';

interface Automation {
  id: string;
}
interface RecordView {
  id: string;
  title: string;
  data: Record<string, unknown>;
  createdBy: string;
}

describe('automation runs', () => {
  let api: TestApi;
  let runner: TestRunner;
  let org: OrganizationWithKey;
  const events: EventEnvelope[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    runner = await startTestRunner(api);
    org = await createOrganizationWithKey(api);
    await org.rpc('dataModels.create', { key: 'invoices', name: 'Invoices' });
    await org.rpc('dataModels.fields.create', { model: 'invoices', key: 'amount', name: 'Amount', type: 'NUMBER', config: {} });
    await org.rpc('dataModels.fields.create', { model: 'invoices', key: 'source', name: 'Source', type: 'TEXT' });
    api.runtime.bus.subscribe('*', (event) => void events.push(event));
  });
  afterAll(async () => {
    await runner.close();
    await api.close();
  });

  const invoices = async () => (await org.rpc<{ items: RecordView[] }>('records.list', { model: 'invoices', limit: 100 })).items;
  const clearInvoices = async () => {
    for (const invoice of await invoices()) await org.rpc('records.delete', { id: invoice.id, hard: true });
  };

  it('runs an event automation on a committed change, with templates rendered as data, as its owner', async () => {
    const automation = await org.rpc<Automation>('automations.create', {
      name: 'Invoice each task',
      trigger: { type: 'event', eventType: 'data-models.tasks.record-created' },
      actions: [
        {
          type: 'create-record',
          model: 'invoices',
          data: { title: 'Invoice for {{event.payload.record.title}}', amount: '{{event.payload.record.data.amount}}', source: '{{event.payload.recordId}}' },
        },
      ],
    });
    const created = await publicApi(api, org.key.token).post(`/models/${org.modelKey}/records`, { data: { title: 'Paint {{now}} fence', amount: 12.5 } });
    expect(created.status).toBe(201);
    const task = (await created.json()) as RecordView;

    const [run] = await finishedRuns(api, automation.id, 1);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'event', chain: [], error: null });
    const [invoice] = await invoices();
    // The record's title was data: its {{now}} was not rendered again.
    expect(invoice).toMatchObject({ title: 'Invoice for Paint {{now}} fence', data: { amount: 12.5, source: task.id }, createdBy: org.owner.user.sub });
    expect(run.action_results).toEqual([{ type: 'create-record', status: 'succeeded', recordId: invoice.id }]);

    await api.runtime.bus.idle();
    const ofRun = events.filter((event) => event.causedBy?.automationRunId === run.id);
    expect(ofRun.map((event) => event.type)).toEqual(['automation.run-started', 'data-models.record-created', 'automation.run-succeeded']);
    expect(ofRun[1]).toMatchObject({ organizationId: org.organizationId, causedBy: { automationChain: [automation.id] }, payload: { recordId: invoice.id } });
    await org.rpc('automations.delete', { id: automation.id });
    await clearInvoices();
  });

  it('runs the actions in order, all or nothing, and records what each did', async () => {
    const { id: taskId } = await org.rpc<RecordView>('records.create', { model: org.modelKey, data: { title: 'Ship order', notes: 'A-1', status: 'open' } });
    const automation = await org.rpc<Automation>('automations.create', {
      name: 'Close an order',
      trigger: { type: 'http' },
      actions: [
        { type: 'create-record', model: 'invoices', data: { title: 'Order {{input.ref}}', amount: '{{input.total}}' } },
        { type: 'update-record', model: org.modelKey, filter: { field: 'notes', op: 'eq', value: '{{input.ref}}' }, data: { status: 'done' } },
        { type: 'notify', role: 'owner', title: 'Order {{input.ref}} closed', body: 'Total: {{input.total}}' },
      ],
    });

    const { runId } = await org.rpc<{ runId: string }>('automations.run', { id: automation.id, input: { ref: 'A-1', total: 99 } });
    const [done] = await finishedRuns(api, automation.id, 1);
    expect(done.id).toBe(runId);
    expect(done.status).toBe('succeeded');
    expect(done.action_results.map((result) => result.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(done.action_results[1].recordId).toBe(taskId);
    expect(done.action_results[2].notified).toBe(1);
    expect((await org.rpc<RecordView>('records.get', { id: taskId })).data.status).toBe('done');
    const inbox = await org.rpc<{ items: Array<{ title: string; body: string }> }>('notifications.list', {});
    expect(inbox.items[0]).toMatchObject({ title: 'Order A-1 closed', body: 'Total: 99' });
    expect(await invoices()).toHaveLength(1);

    // No task has notes B-2: the second action fails, and the invoice of the first is not kept.
    await org.rpc('automations.run', { id: automation.id, input: { ref: 'B-2', total: 5 } });
    const [, failed] = await finishedRuns(api, automation.id, 2);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('Action 2 (update-record) failed: A record of model tasks matching the filter not found');
    expect(failed.action_results.map((result) => result.status)).toEqual(['rolled-back', 'failed', 'not-run']);
    expect(failed.action_results[1].error?.code).toBe('not_found');
    expect((await invoices()).map((invoice) => invoice.title)).toEqual(['Order A-1']);
    await api.runtime.bus.idle();
    expect(events.filter((event) => event.causedBy?.automationRunId === failed.id).map((event) => event.type)).toEqual([
      'automation.run-started',
      'automation.run-failed',
    ]);
    const [view] = (await org.rpc<{ items: Array<{ id: string; status: string; chainDepth: number; actions: unknown[] }> }>('automations.runs.list', { automationId: automation.id, limit: 1 })).items;
    expect(view).toMatchObject({ id: failed.id, status: 'failed', chainDepth: 1 });
    await org.rpc('automations.delete', { id: automation.id });
    await clearInvoices();
  });

  it('acts with what the owner holds at run time: a lost permission fails the run with a clear error', async () => {
    await org.rpc('rbac.roles.create', {
      key: 'builder',
      name: 'Builder',
      permissions: ['automations.manage', 'data-models.read', 'records.read', 'records.create'],
    });
    const builder = await org.addMember(['builder'], 'builder');
    const automation = await org.rpc<Automation>(
      'automations.create',
      { name: 'Builder invoices', trigger: { type: 'http' }, actions: [{ type: 'create-record', model: 'invoices', data: { title: 'By the builder' } }] },
      builder.session,
    );
    await org.rpc('automations.run', { id: automation.id }, builder.session);
    expect((await finishedRuns(api, automation.id, 1))[0].status).toBe('succeeded');

    await org.rpc('rbac.roles.update', { key: 'builder', permissions: ['automations.manage', 'data-models.read', 'records.read'] });
    // The organization's owner may still run it (they hold more than the builder does).
    await org.rpc('automations.run', { id: automation.id });
    const [, refused] = await finishedRuns(api, automation.id, 2);
    expect(refused.status).toBe('failed');
    expect(refused.error).toBe('Action 1 (create-record) failed: Missing permission records.create');
    expect(refused.action_results[0].error?.code).toBe('forbidden');
    expect((await invoices()).map((invoice) => invoice.createdBy)).toEqual([builder.user.sub]);
    await org.rpc('automations.delete', { id: automation.id });
    await clearInvoices();
  });

  it('ignores events its own runs caused, and stops an opted-in loop at depth 8 with a failed run', async () => {
    const trigger = { type: 'event', eventType: 'data-models.invoices.record-created' };
    const actions = [{ type: 'create-record', model: 'invoices', data: { title: 'Echo of {{event.payload.record.title}}' } }];
    const quiet = await org.rpc<Automation>('automations.create', { name: 'Echo once', trigger, actions });
    await org.rpc('records.create', { model: 'invoices', data: { title: 'Seed' } });
    const [once] = await finishedRuns(api, quiet.id, 1);
    expect(once.status).toBe('succeeded');
    // The echo's own record-created event did not start it again.
    await org.rpc('automations.delete', { id: quiet.id });
    await clearInvoices();

    const looping = await org.rpc<Automation>('automations.create', {
      name: 'Echo forever',
      trigger: { ...trigger, includeOwnRuns: true },
      actions,
      maxRunsPerMinute: 100,
    });
    await org.rpc('records.create', { model: 'invoices', data: { title: 'Seed' } });
    const runs = await finishedRuns(api, looping.id, 9);
    expect(runs.map((run) => run.status)).toEqual([...Array(8).fill('succeeded'), 'failed']);
    expect(runs.map((run) => run.chain.length)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(runs[8].error).toBe('Stopped: this run would be automation number 9 in a chain of automations triggering one another (at most 8)');
    expect(await invoices()).toHaveLength(9);
    await org.rpc('automations.delete', { id: looping.id });
    await clearInvoices();
  });

  it('records runs over the per-minute limit in one skipped row that counts them, and does not queue them', async () => {
    const automation = await org.rpc<Automation>('automations.create', {
      name: 'Twice a minute',
      trigger: { type: 'http' },
      actions: [{ type: 'create-record', model: 'invoices', data: { title: 'Limited' } }],
      maxRunsPerMinute: 2,
    });
    const runIds: string[] = [];
    for (let index = 0; index < 4; index++) runIds.push((await org.rpc<{ runId: string }>('automations.run', { id: automation.id })).runId);
    const runs = await finishedRuns(api, automation.id, 3);
    expect(runs.map((run) => run.status).sort()).toEqual(['skipped', 'succeeded', 'succeeded']);
    const skipped = runs.find((run) => run.status === 'skipped');
    // Both runs over the limit are answered with the row that counts them.
    expect(runIds.slice(2)).toEqual([skipped?.id, skipped?.id]);
    const view = await org.rpc<{ status: string; error: string; skippedRuns: number }>('automations.runs.get', { id: skipped?.id });
    expect(view).toMatchObject({
      status: 'skipped',
      skippedRuns: 2,
      error: 'Rate limit: the automation runs at most 2 times a minute; the runs over it in this minute were not queued',
    });
    expect(await invoices()).toHaveLength(2);
    await org.rpc('automations.delete', { id: automation.id });
    await clearInvoices();
  });

  it('hands a record event to nobody who cannot read the record', async () => {
    await org.rpc('rbac.roles.create', { key: 'watcher', name: 'Watcher', permissions: ['automations.manage'] });
    const watcher = await org.addMember(['watcher'], 'watcher');
    const automation = await org.rpc<Automation>(
      'automations.create',
      {
        name: 'Peek',
        trigger: { type: 'event', eventType: 'data-models.invoices.record-created' },
        actions: [{ type: 'notify', userIds: [watcher.user.sub], title: 'Saw {{event.payload.record.title}}' }],
      },
      watcher.session,
    );
    await org.rpc('records.create', { model: 'invoices', data: { title: 'Confidential deal' } });
    const [run] = await finishedRuns(api, automation.id, 1);
    expect(run.status).toBe('failed');
    expect(run.error).toBe('The automation cannot run: its owner cannot read the record the event is about (Missing permission records.read)');
    const inbox = await org.rpc<{ items: Array<{ title: string }> }>('notifications.list', {}, watcher.session);
    expect(inbox.items.map((item) => item.title).filter((title) => title.includes('Confidential'))).toEqual([]);

    // A card's events tell its record's title and column: the same rule.
    const board = await org.rpc<{ id: string }>('kanban.boards.create', { name: 'Deals', modelKey: org.modelKey, fieldKey: 'status' });
    const onCards = await org.rpc<Automation>(
      'automations.create',
      {
        name: 'Peek at cards',
        trigger: { type: 'event', eventType: 'kanban.card-created' },
        actions: [{ type: 'notify', userIds: [watcher.user.sub], title: 'Card {{event.payload.title}}' }],
      },
      watcher.session,
    );
    await org.rpc('records.create', { model: org.modelKey, data: { title: 'Secret card', status: 'open' } });
    const [cardRun] = await finishedRuns(api, onCards.id, 1);
    expect(cardRun.error).toBe('The automation cannot run: its owner cannot read the record the event is about (Missing permission records.read)');
    const cardInbox = await org.rpc<{ items: Array<{ title: string }> }>('notifications.list', {}, watcher.session);
    expect(cardInbox.items.map((item) => item.title).filter((title) => title.includes('Secret'))).toEqual([]);
    await org.rpc('automations.delete', { id: onCards.id });
    await org.rpc('kanban.boards.delete', { id: board.id });

    // Nor through someone's notifications: a catch-all automation is not fed them.
    const everything = await org.rpc<Automation>(
      'automations.create',
      { name: 'All', trigger: { type: 'event', eventType: '*' }, actions: [{ type: 'notify', userIds: [watcher.user.sub], title: 'Saw {{event.type}}' }] },
      watcher.session,
    );
    await org.rpc('notifications.send', { userIds: [org.owner.user.sub], title: 'For the owner only' });
    await api.runtime.bus.idle();
    const types = await queryDatabase<{ type: string }>(api, "SELECT event->>'type' AS type FROM automation_runs WHERE automation_id = $1", [everything.id]);
    expect(types.filter((row) => row.type.startsWith('notification.'))).toEqual([]);
    await org.rpc('automations.delete', { id: everything.id });
    await org.rpc('automations.delete', { id: automation.id });
    await clearInvoices();
  });

  const rpcAsOwner = (name: string, input: unknown) =>
    api.request(`/rpc/${name}`, { method: 'POST', json: input, token: org.owner.session, organizationId: org.organizationId });

  it('refuses at save an action naming a missing model or field, or a value its field refuses; a template passes until it runs', async () => {
    const definition = (actions: unknown[]) => ({ name: 'Checked', trigger: { type: 'http' }, actions });
    const refused = await rpcAsOwner(
      'automations.create',
      definition([
        { type: 'create-record', model: 'dealz', data: { title: 'Deal' } },
        { type: 'create-record', model: 'invoices', data: { title: 'Invoice', amout: 3, amount: 'twelve' } },
        { type: 'update-record', model: 'invoices', filter: { field: 'sauce', op: 'eq', value: 'x' }, data: { amount: '{{input.amount}}' } },
        { type: 'create-record', model: 'invoices', data: { amount: 1 } },
      ]),
    );
    expect((await expectError(refused, 400, 'validation_failed')).details).toEqual([
      { field: 'actions[0].model', code: 'not_found', message: 'The organization has no model "dealz"' },
      { field: 'actions[1].data.amout', code: 'unknown_field', message: 'Unknown field "amout".' },
      { field: 'actions[1].data.amount', code: 'invalid_type', message: expect.any(String) },
      { field: 'actions[2].filter.field', code: expect.any(String), message: expect.stringContaining('sauce') },
      { field: 'actions[3].data.title', code: 'required', message: expect.any(String) },
    ]);
    expect(await queryDatabase(api, "SELECT id FROM automations WHERE name = 'Checked'")).toEqual([]);

    // Templates are values of any type until a run renders them; what they render to is checked then.
    const templated = await org.rpc<Automation>(
      'automations.create',
      definition([{ type: 'create-record', model: 'invoices', data: { title: '{{input.title}}', amount: '{{input.amount}}', source: 'checked' } }]),
    );
    const changedToWrongType = await rpcAsOwner('automations.update', {
      id: templated.id,
      actions: [{ type: 'create-record', model: 'invoices', data: { title: 'Fixed', amount: true } }],
    });
    expect((await expectError(changedToWrongType, 400, 'validation_failed')).details?.map((detail) => detail.field)).toEqual(['actions[0].data.amount']);
    await org.rpc('automations.run', { id: templated.id, input: { title: 'Rendered', amount: 42 } });
    const [run] = await finishedRuns(api, templated.id, 1);
    expect(run.status).toBe('succeeded');
    expect((await invoices()).map((invoice) => [invoice.title, invoice.data.amount])).toEqual([['Rendered', 42]]);
    await org.rpc('automations.delete', { id: templated.id });
    await clearInvoices();
  });

  it('keeps a stored automation working when its model changes later: only actions being saved are checked', async () => {
    await org.rpc('dataModels.fields.create', { model: 'invoices', key: 'legacy_code', name: 'Legacy code', type: 'TEXT' });
    const actions = [{ type: 'create-record', model: 'invoices', data: { title: 'Kept {{input.n}}', legacy_code: 'L-1' } }];
    const stored = await org.rpc<Automation>('automations.create', { name: 'Stored', trigger: { type: 'http' }, actions });
    const later = await org.rpc<Automation>('automations.create', {
      name: 'Unaffected',
      trigger: { type: 'http' },
      actions: [{ type: 'create-record', model: 'invoices', data: { title: 'Still {{input.n}}' } }],
    });
    await org.rpc('dataModels.fields.archive', { model: 'invoices', key: 'legacy_code' });

    // Renaming, pausing and resuming it do not touch its actions.
    expect((await rpcAsOwner('automations.update', { id: stored.id, name: 'Stored, renamed', enabled: false })).status).toBe(200);
    expect((await rpcAsOwner('automations.update', { id: stored.id, enabled: true })).status).toBe(200);
    // Saving its actions again is checked against today's model.
    const resaved = await rpcAsOwner('automations.update', { id: stored.id, actions });
    expect((await expectError(resaved, 400, 'validation_failed')).details).toEqual([
      { field: 'actions[0].data.legacy_code', code: 'unknown_field', message: 'Unknown field "legacy_code".' },
    ]);

    // Runs still happen: the other automation succeeds, the stale one fails with the record's own refusal.
    await org.rpc('automations.run', { id: later.id, input: { n: 1 } });
    expect((await finishedRuns(api, later.id, 1))[0].status).toBe('succeeded');
    await org.rpc('automations.run', { id: stored.id, input: { n: 2 } });
    const [staleRun] = await finishedRuns(api, stored.id, 1);
    expect(staleRun.status).toBe('failed');
    expect(staleRun.action_results[0].error?.code).toBe('validation_failed');
    expect((await invoices()).map((invoice) => invoice.title)).toEqual(['Still 1']);
    await org.rpc('automations.delete', { id: stored.id });
    await org.rpc('automations.delete', { id: later.id });
    await clearInvoices();
  });

  it('keeps a rolled-back change from triggering anything', async () => {
    const automation = await org.rpc<Automation>('automations.create', {
      name: 'On any invoice',
      trigger: { type: 'event', eventType: 'data-models.invoices.*' },
      actions: [{ type: 'notify', userIds: [org.owner.user.sub], title: 'Invoice {{event.type}}' }],
    });
    // A field that does not exist: the write is refused, nothing commits, nothing is queued.
    const refused = await api.rpc('records.create', { model: 'invoices', data: { title: 'X', nope: 1 } }, { token: org.owner.session, organizationId: org.organizationId });
    expect(refused.status).toBe(400);
    expect(await queryDatabase(api, 'SELECT id FROM automation_runs WHERE automation_id = $1', [automation.id])).toEqual([]);
    await org.rpc('automations.delete', { id: automation.id });
  });
});

describe('waking the automation runner', () => {
  it('runs an event automation on the wake-up sent after the change committed, with no poll to fall back on', async () => {
    const api = await startTestApi();
    const runner = await startTestRunner(api, 3_600_000);
    try {
      const org = await createOrganizationWithKey(api);
      const automation = await org.rpc<Automation>('automations.create', {
        name: 'Echo each task',
        trigger: { type: 'event', eventType: `data-models.${org.modelKey}.record-created` },
        actions: [{ type: 'notify', role: 'owner', title: 'New task {{event.payload.record.title}}' }],
      });
      await Promise.all(['one', 'two'].map((title) => publicApi(api, org.key.token).post(`/models/${org.modelKey}/records`, { data: { title } })));
      const runs = await finishedRuns(api, automation.id, 2, 10_000);
      expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    } finally {
      await runner.close();
      await api.close();
    }
  });
});
