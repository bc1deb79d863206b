import { Type } from '@sinclair/typebox';
import {
  DomainError,
  defineProcedure,
  findStoredAnswer,
  invokeProcedure,
  platformModule,
  runInTransaction,
  storeAnswer,
  type IdempotencyScope,
} from '@mrp/platform';
import { RecordingEventDispatcher, createTestOrm, flagsAllOff, silentLogger, testPrincipal, type TestOrm } from '@mrp/platform/testing';
import { AnswerToReplay, idempotentOutcome, type HttpAnswer } from './idempotency';

/**
 * The race the answer store arbitrates: another request with the same key kept its answer after
 * this one's claim read the key (its snapshot missed it) and before this one committed. This one's
 * answer travels with its COMMIT, which must then fail, taking its change with it.
 */
describe('idempotentOutcome when another request keeps its answer first', () => {
  let db: TestOrm;
  let competing: { scope: IdempotencyScope; requestHash: string } | undefined;

  const createThing = defineProcedure({
    name: 'test.createThing',
    summary: 'writes a row; meanwhile a competing request may keep its answer for the same key',
    scope: 'organization',
    permission: 'things.create',
    input: Type.Object({ id: Type.Integer() }, { additionalProperties: false }),
    async handler(ctx, input) {
      await ctx.em.execute('INSERT INTO things (id) VALUES (?)', [input.id]);
      if (competing) {
        const { scope, requestHash } = competing;
        await runInTransaction(db.orm.em.fork(), (tx) => storeAnswer(tx, scope, { requestHash, status: 201, headers: {}, body: { id: 'theirs' } }));
      }
      ctx.emit({ type: 'test.thing-created', organizationId: ctx.organizationId, payload: { id: input.id } });
      return { id: input.id };
    },
  });

  const answerOf = (output: unknown): HttpAnswer => ({ status: 201, headers: {}, body: output });
  const run = (id: number, scope: IdempotencyScope, requestHash: string, dispatcher = new RecordingEventDispatcher()) => {
    const recorder = idempotentOutcome({
      scope,
      requestHash,
      answerOf,
      failureAnswerOf: (error: DomainError) => ({ status: 400, headers: {}, body: { error: { code: error.code } } }),
    });
    const outcome = invokeProcedure(
      createThing,
      { id },
      { em: db.orm.em.fork(), principal: testPrincipal({ organizationId: 'org-1', permissions: new Set(['things.create']) }), correlationId: `req-${id}`, recorder },
      { dispatcher, logger: silentLogger, flags: flagsAllOff },
    );
    return { recorder, outcome };
  };
  const things = async () => (await db.orm.em.fork().execute<Array<{ id: number }>>('SELECT id FROM things ORDER BY id')).map((row) => row.id);

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
    await db.orm.em.fork().execute('CREATE TABLE things (id int PRIMARY KEY)');
  });
  afterAll(() => db.close());
  afterEach(() => (competing = undefined));

  it('keeps its answer with the change when nobody competes', async () => {
    const scope = { credentialId: 'api-key:a', key: 'k-1' };
    const { recorder, outcome } = run(1, scope, 'hash-1');
    await expect(outcome).resolves.toEqual({ id: 1 });
    expect(recorder.answer).toEqual(answerOf({ id: 1 }));
    expect(await findStoredAnswer(db.orm.em.fork(), scope)).toEqual({ requestHash: 'hash-1', ...answerOf({ id: 1 }) });
  });

  it('replays the answer kept first for the same request, and its own change and events are gone', async () => {
    const scope = { credentialId: 'api-key:a', key: 'k-2' };
    competing = { scope, requestHash: 'hash-2' };
    const dispatcher = new RecordingEventDispatcher();
    const { recorder, outcome } = run(2, scope, 'hash-2', dispatcher);
    const thrown = await outcome.catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(AnswerToReplay);
    expect((thrown as AnswerToReplay).answer).toMatchObject({ status: 201, body: { id: 'theirs' } });
    expect(recorder.answer).toBeUndefined();
    expect(await things()).not.toContain(2);
    expect(dispatcher.published).toEqual([]);
  });

  it('is a 409 idempotency_conflict when the answer kept first is another request\'s', async () => {
    const scope = { credentialId: 'api-key:a', key: 'k-3' };
    competing = { scope, requestHash: 'someone else' };
    await expect(run(3, scope, 'hash-3').outcome).rejects.toMatchObject({ code: 'idempotency_conflict' });
    expect(await things()).not.toContain(3);
    expect((await findStoredAnswer(db.orm.em.fork(), scope))?.requestHash).toBe('someone else');
  });
});
