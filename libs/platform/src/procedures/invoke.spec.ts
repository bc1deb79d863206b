import { Type } from '@sinclair/typebox';
import { RecordingEventDispatcher as RecordingDispatcher, createTestOrm, flagsAllOff, silentLogger, testPrincipal, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { DomainError } from '../errors/domain-error';
import { defineProcedure } from './procedure';
import { invokeProcedure, validateProcedureInput, type InvocationDeps, type OutcomeRecorder } from './invoke';
import { executePreparedAtCommit } from '../database/driver/execute-prepared';
import { preparedStatement } from '../database/driver/prepared-statement';

const insertFlag = preparedStatement('INSERT INTO feature_flags (key, enabled) VALUES ($1::text, true)', { purpose: 'test flag insert', indexes: ['feature_flags_pkey'] });

const setFlag = defineProcedure({
  name: 'test.setFlag',
  summary: 'writes a flag row, then optionally fails',
  scope: 'organization',
  permission: 'flags.write',
  input: Type.Object({ key: Type.String({ minLength: 1 }), fail: Type.Boolean({ default: false }) }, { additionalProperties: false }),
  async handler(ctx, input) {
    await ctx.em.execute('INSERT INTO feature_flags (key, enabled) VALUES (?, true)', [input.key]);
    ctx.emit({ type: 'test.flag-set', organizationId: ctx.organizationId, payload: { key: input.key } });
    if (input.fail) throw new DomainError('conflict', 'asked to fail');
    return { key: input.key, organizationId: ctx.organizationId };
  },
});

describe('invokeProcedure', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  const flagsOn: InvocationDeps['flags'] = { isEnabled: async () => true };
  const principal = testPrincipal({ organizationId: 'org-1', permissions: new Set(['flags.write']) });
  const invoke = (input: unknown, dispatcher = new RecordingDispatcher(), who = principal) =>
    invokeProcedure(setFlag, input, { em: db.orm.em.fork(), principal: who, correlationId: 'req-1' }, { dispatcher, logger: silentLogger, flags: flagsAllOff });
  const count = async (key: string) =>
    (await db.orm.em.fork().getConnection().execute('SELECT count(*)::int AS n FROM feature_flags WHERE key = ?', [key]))[0].n;

  it('runs the handler, commits, persists events in the transaction and publishes them after', async () => {
    const dispatcher = new RecordingDispatcher();
    await expect(invoke({ key: 'a.ok' }, dispatcher)).resolves.toEqual({ key: 'a.ok', organizationId: 'org-1' });
    expect(await count('a.ok')).toBe(1);
    expect(dispatcher.persisted).toHaveLength(1);
    expect(dispatcher.published).toEqual(dispatcher.persisted);
    expect(dispatcher.published[0]).toMatchObject({ type: 'test.flag-set', correlationId: 'req-1', organizationId: 'org-1' });
    expect(dispatcher.published[0].id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rolls back and publishes nothing when the handler fails', async () => {
    const dispatcher = new RecordingDispatcher();
    await expect(invoke({ key: 'a.fail', fail: true }, dispatcher)).rejects.toMatchObject({ code: 'conflict' });
    expect(await count('a.fail')).toBe(0);
    expect(dispatcher.published).toEqual([]);
  });

  it('fills defaults in a copy: the input the caller handed over is never changed', async () => {
    const input = { key: 'a.defaults' };
    await expect(invoke(input)).resolves.toEqual({ key: 'a.defaults', organizationId: 'org-1' });
    expect(input).toEqual({ key: 'a.defaults' });
    expect(validateProcedureInput(setFlag, input)).toEqual({ key: 'a.defaults', fail: false });
    expect(input).toEqual({ key: 'a.defaults' });
  });

  it('rejects invalid input with every problem listed', async () => {
    await expect(invoke({ key: '', extra: 1 })).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([
        expect.objectContaining({ field: 'key', code: 'invalid_format' }),
        expect.objectContaining({ field: 'extra', code: 'unknown_field' }),
      ]),
    });
  });

  it.each([
    ['U+0000', 'a.nul\u0000'],
    ['a lone surrogate', 'a.lone\ud800'],
  ])('refuses a string holding %s before PostgreSQL sees it', async (_name, key) => {
    await expect(invoke({ key })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'key', code: 'invalid_format' })],
    });
    expect(await count(key.slice(0, -1))).toBe(0);
  });

  it('refuses a principal without the permission before the handler runs', async () => {
    const who = testPrincipal({ organizationId: 'org-1', permissions: new Set() });
    await expect(invoke({ key: 'a.denied' }, undefined, who)).rejects.toMatchObject({
      code: 'forbidden',
      message: 'Missing permission flags.write',
    });
    expect(await count('a.denied')).toBe(0);
  });

  it('needs an active organization for organization-scoped procedures', async () => {
    const who = testPrincipal({ organizationId: null, permissions: new Set(['flags.write']) });
    await expect(invoke({ key: 'a.noorg' }, undefined, who)).rejects.toMatchObject({ code: 'bad_request' });
  });

  describe('a procedure behind a feature flag', () => {
    const gated = defineProcedure({ ...setFlag, name: 'test.gatedSetFlag', featureFlag: 'public-api.service-accounts' });
    const invokeGated = (input: unknown, flags: InvocationDeps['flags'], who = principal) =>
      invokeProcedure(gated, input, { em: db.orm.em.fork(), principal: who, correlationId: 'req-g' }, {
        dispatcher: new RecordingDispatcher(),
        logger: silentLogger,
        flags,
      });

    it('does not exist while the flag is off: not_found before the permission or the input is looked at', async () => {
      const nobody = testPrincipal({ organizationId: null, permissions: new Set() });
      await expect(invokeGated({ key: 42 }, flagsAllOff, nobody)).rejects.toMatchObject({
        code: 'not_found',
        message: 'Procedure test.gatedSetFlag not found',
      });
      await expect(invokeGated({ key: 'g.off' }, flagsAllOff)).rejects.toMatchObject({ code: 'not_found' });
      expect(await count('g.off')).toBe(0);
    });

    it('runs as usual while the flag is on', async () => {
      await expect(invokeGated({ key: 'g.on' }, flagsOn)).resolves.toEqual({ key: 'g.on', organizationId: 'org-1' });
      expect(await count('g.on')).toBe(1);
    });
  });

  describe('permissions that depend on the input', () => {
    const purgeable = defineProcedure({
      ...setFlag,
      name: 'test.purgeableSetFlag',
      inputPermissions: [{ permission: 'flags.purge', when: 'fail=true', appliesTo: (input) => input.fail === true }],
    });
    const invokePurgeable = (input: unknown, permissions: string[]) =>
      invokeProcedure(
        purgeable,
        input,
        { em: db.orm.em.fork(), principal: testPrincipal({ organizationId: 'org-1', permissions: new Set(permissions) }), correlationId: 'req-p' },
        { dispatcher: new RecordingDispatcher(), logger: silentLogger, flags: flagsAllOff },
      );

    it('are required only for the inputs they apply to, before the handler runs', async () => {
      await expect(invokePurgeable({ key: 'p.plain' }, ['flags.write'])).resolves.toMatchObject({ key: 'p.plain' });
      await expect(invokePurgeable({ key: 'p.denied', fail: true }, ['flags.write'])).rejects.toMatchObject({
        code: 'forbidden',
        message: 'Missing permission flags.purge',
      });
      expect(await count('p.denied')).toBe(0);
      // With the permission the handler runs (and fails as asked, so the error is the handler's).
      await expect(invokePurgeable({ key: 'p.held', fail: true }, ['flags.write', 'flags.purge'])).rejects.toMatchObject({
        code: 'conflict',
      });
    });
  });

  describe('with an outcome recorder', () => {
    /** Records the outcome as a flag row of its own, in the call's transaction. */
    const recorder = (mark: string, keepFailures: boolean, begin: OutcomeRecorder['begin'] = async () => undefined): OutcomeRecorder => ({
      begin,
      succeeded: async (em) => void (await em.execute('INSERT INTO feature_flags (key, enabled) VALUES (?, true)', [mark])),
      failed: async (em) => {
        if (keepFailures) await em.execute('INSERT INTO feature_flags (key, enabled) VALUES (?, false)', [mark]);
        return keepFailures;
      },
    });
    const invokeRecorded = (input: unknown, outcome: OutcomeRecorder, dispatcher = new RecordingDispatcher()) =>
      invokeProcedure(setFlag, input, { em: db.orm.em.fork(), principal, correlationId: 'req-r', recorder: outcome }, {
        dispatcher,
        logger: silentLogger,
        flags: flagsAllOff,
      });

    it('commits what it writes with the change', async () => {
      const dispatcher = new RecordingDispatcher();
      await expect(invokeRecorded({ key: 'r.ok' }, recorder('r.ok.outcome', true), dispatcher)).resolves.toMatchObject({ key: 'r.ok' });
      expect([await count('r.ok'), await count('r.ok.outcome')]).toEqual([1, 1]);
      expect(dispatcher.published).toHaveLength(1);
    });

    it('a kept failure: the handler\'s writes and events are undone, the record committed, the error thrown', async () => {
      const dispatcher = new RecordingDispatcher();
      await expect(invokeRecorded({ key: 'r.kept', fail: true }, recorder('r.kept.outcome', true), dispatcher)).rejects.toMatchObject({ code: 'conflict' });
      expect([await count('r.kept'), await count('r.kept.outcome')]).toEqual([0, 1]);
      expect(dispatcher.persisted).toEqual([]);
      expect(dispatcher.published).toEqual([]);
    });

    it('a failure it does not keep rolls everything back', async () => {
      await expect(invokeRecorded({ key: 'r.dropped', fail: true }, recorder('r.dropped.outcome', false))).rejects.toMatchObject({ code: 'conflict' });
      expect([await count('r.dropped'), await count('r.dropped.outcome')]).toEqual([0, 0]);
    });

    it('a commit that fails after begin is handed to transactionFailed, which may throw the call\'s real outcome', async () => {
      const dispatcher = new RecordingDispatcher();
      const seen: unknown[] = [];
      const failingAtCommit: OutcomeRecorder = {
        ...recorder('r.late.outcome', true),
        // The outcome's row, deferred to COMMIT, collides with the change's own row: the commit fails.
        succeeded: (em) => executePreparedAtCommit(em, insertFlag, ['r.late']),
        transactionFailed: async (_em, error) => {
          seen.push(error);
          throw new DomainError('idempotency_conflict', 'settled by another request');
        },
      };
      await expect(invokeRecorded({ key: 'r.late' }, failingAtCommit, dispatcher)).rejects.toMatchObject({ code: 'idempotency_conflict' });
      expect(seen).toEqual([expect.objectContaining({ code: '23505' })]);
      expect(await count('r.late')).toBe(0);
      expect(dispatcher.published).toEqual([]);
    });

    it('a commit failure transactionFailed lets stand is thrown as it is', async () => {
      const standing: OutcomeRecorder = { ...recorder('r.stand.outcome', true), succeeded: (em) => executePreparedAtCommit(em, insertFlag, ['r.stand']), transactionFailed: async () => undefined };
      await expect(invokeRecorded({ key: 'r.stand' }, standing)).rejects.toMatchObject({ code: '23505' });
      expect(await count('r.stand')).toBe(0);
    });

    it('a throw from begin runs nothing', async () => {
      const refuse = async () => {
        throw new DomainError('request_in_progress', 'busy');
      };
      await expect(invokeRecorded({ key: 'r.refused' }, recorder('r.refused.outcome', true, refuse))).rejects.toMatchObject({ code: 'request_in_progress' });
      expect([await count('r.refused'), await count('r.refused.outcome')]).toEqual([0, 0]);
    });
  });
});
