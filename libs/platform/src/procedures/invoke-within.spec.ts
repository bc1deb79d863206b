import { Type } from '@sinclair/typebox';
import { RecordingEventDispatcher, createTestOrm, flagsAllOff, silentLogger, testPrincipal, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../platform-module';
import { DomainError } from '../errors/domain-error';
import { defineProcedure } from './procedure';
import { invokeProcedure, type InvocationDeps } from './invoke';
import { invokeWithin } from './invoke-within';

describe('invokeWithin', () => {
  let db: TestOrm;
  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  const ran: string[] = [];
  const inner = defineProcedure({
    name: 'test.inner',
    summary: 'writes a flag row, emits, and asks for an after-commit task',
    scope: 'organization',
    permission: 'flags.write',
    input: Type.Object({ key: Type.String() }, { additionalProperties: false }),
    async handler(ctx, input) {
      await ctx.em.execute('INSERT INTO feature_flags (key, enabled) VALUES (?, true)', [input.key]);
      ctx.emit({ type: 'test.inner-done', organizationId: ctx.organizationId, payload: { key: input.key } });
      ctx.afterCommit(async () => void ran.push(input.key));
      return { key: input.key };
    },
  });
  const deps = (dispatcher: RecordingEventDispatcher): InvocationDeps => ({ dispatcher, logger: silentLogger, flags: flagsAllOff });
  const outer = (dispatcher: RecordingEventDispatcher) =>
    defineProcedure({
      name: 'test.outer',
      summary: 'calls test.inner, then optionally fails',
      scope: 'organization',
      permission: 'flags.write',
      input: Type.Object({ key: Type.String(), fail: Type.Boolean() }, { additionalProperties: false }),
      async handler(ctx, input) {
        await invokeWithin(ctx, inner, { key: input.key }, deps(dispatcher));
        // The nested call's task waits for this transaction.
        if (ran.includes(input.key)) throw new Error('an after-commit task ran before the commit');
        if (input.fail) throw new DomainError('conflict', 'asked to fail');
        return { key: input.key };
      },
    });
  const principal = testPrincipal({ organizationId: 'org-1', permissions: new Set(['flags.write']) });
  const count = async (key: string) =>
    (await db.orm.em.fork().getConnection().execute('SELECT count(*)::int AS n FROM feature_flags WHERE key = ?', [key]))[0].n;

  it("joins the caller's transaction: its events are published once, and its after-commit tasks run after the caller commits", async () => {
    const dispatcher = new RecordingEventDispatcher();
    await invokeProcedure(outer(dispatcher), { key: 'w.ok', fail: false }, { em: db.orm.em.fork(), principal, correlationId: 'req-w' }, deps(dispatcher));
    expect(await count('w.ok')).toBe(1);
    expect(dispatcher.published.map((event) => event.type)).toEqual(['test.inner-done']);
    expect(ran).toContain('w.ok');
  });

  it('leaves nothing of the nested call when the caller fails: no row, no event, no after-commit task', async () => {
    const dispatcher = new RecordingEventDispatcher();
    await expect(
      invokeProcedure(outer(dispatcher), { key: 'w.fail', fail: true }, { em: db.orm.em.fork(), principal, correlationId: 'req-w' }, deps(dispatcher)),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(await count('w.fail')).toBe(0);
    expect(dispatcher.published).toEqual([]);
    expect(ran).not.toContain('w.fail');
  });
});
