import { DriverException, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import pino from 'pino';
import { createTestOrm, statementsOf, type TestOrm } from '@mrp/platform/testing';
import { FeatureFlag } from '../../feature-flags/feature-flag.entity';
import { platformModule } from '../../platform-module';
import { executePrepared, executePreparedAtCommit } from './execute-prepared';
import { TransactionCompleteError } from './pinned-transaction';
import { Pipeline } from './pipeline';
import { preparedStatement } from './prepared-statement';
import { withSession } from '../session';
import { runInTransaction } from '../transaction';

describe('DirectPgConnection (raw SQL and transactions straight on pg)', () => {
  let db: TestOrm;
  let behindPooler = false;
  const fork = () => db.orm.em.fork();
  const ids = async () => (await fork().execute<Array<{ id: number }>>('SELECT id FROM probe ORDER BY id')).map((row) => row.id);

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
    behindPooler = db.database.env.DATABASE_POOLER === 'transaction';
    await fork().execute('CREATE TABLE probe (id int PRIMARY KEY, note text)');
  });
  afterAll(() => db.close());

  it('sends BEGIN with a first statement without values as one message, and COMMIT as the only extra round trip', async () => {
    const sent = await statementsOf(() =>
      fork().transactional(async (em) => {
        await em.execute('INSERT INTO probe (id) VALUES (10)');
        await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [1, 'one']);
      }),
    );
    expect(sent).toEqual(['begin;INSERT INTO probe (id) VALUES (10)', 'INSERT INTO probe (id, note) VALUES ($1::int4, $2)', 'COMMIT']);
    expect(await ids()).toEqual(expect.arrayContaining([1, 10]));
  });

  it('pipelines BEGIN with a first statement with values: one round trip', async () => {
    const sent = await statementsOf(() => fork().transactional((em) => em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [11, 'eleven'])));
    expect(sent).toEqual(['begin | INSERT INTO probe (id, note) VALUES ($1::int4, $2)', 'COMMIT']);
    expect(await ids()).toContain(11);
  });

  it('costs no round trip at all for a transaction that runs no statement', async () => {
    expect(await statementsOf(() => fork().transactional(async () => 'nothing to do'))).toEqual([]);
  });

  it('rolls back everything when the work fails', async () => {
    const sent = await statementsOf(() =>
      fork()
        .transactional(async (em) => {
          await em.execute('INSERT INTO probe (id) VALUES (2)');
          throw new Error('changed my mind');
        })
        .catch((error: Error) => expect(error.message).toBe('changed my mind')),
    );
    expect(sent).toEqual(['begin;INSERT INTO probe (id) VALUES (2)', 'ROLLBACK']);
    expect(await ids()).not.toContain(2);
  });

  it('treats a failed first statement like one after a separate BEGIN: the rest is refused and nothing commits', async () => {
    // A syntax error rejects the whole message, BEGIN included; the transaction must still behave as aborted.
    await fork().transactional(async (em) => {
      const failure = await em.execute('SELEC 1').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(DriverException);
      expect(failure).toMatchObject({ message: expect.stringMatching(/^SELEC 1 - syntax error/), position: '1' });
      await expect(em.execute('INSERT INTO probe (id) VALUES (3)')).rejects.toMatchObject({
        code: '25P02',
        message: expect.stringContaining('current transaction is aborted'),
      });
    });
    expect(await ids()).not.toContain(3);
  });

  it('leaves a transaction aborted by a later failure to PostgreSQL: nothing of it commits', async () => {
    await fork().transactional(async (em) => {
      await em.execute('INSERT INTO probe (id) VALUES (4)');
      await expect(em.execute('SELECT 1/0')).rejects.toThrow('division by zero');
      await expect(em.execute('INSERT INTO probe (id) VALUES (5)')).rejects.toMatchObject({ code: '25P02' });
    });
    const present = await ids();
    expect(present).not.toContain(4);
    expect(present).not.toContain(5);
  });

  it('runs a nested em.transactional as a savepoint that rolls back alone', async () => {
    const sent = await statementsOf(() =>
      fork().transactional(async (em) => {
        await em.execute('INSERT INTO probe (id) VALUES (6)');
        await em
          .transactional(async (inner) => {
            await inner.execute('INSERT INTO probe (id) VALUES (7)');
            throw new Error('inner fails');
          })
          .catch(() => undefined);
      }),
    );
    expect(sent[0]).toBe('begin;INSERT INTO probe (id) VALUES (6)');
    expect(sent).toEqual(expect.arrayContaining([expect.stringMatching(/^SAVEPOINT /), expect.stringMatching(/^ROLLBACK TO SAVEPOINT /)]));
    expect(sent[sent.length - 1]).toBe('COMMIT');
    const present = await ids();
    expect(present).toContain(6);
    expect(present).not.toContain(7);
  });

  it('sends a savepoint and its release with the statements around them, and nothing for one in which nothing ran', async () => {
    const sent = await statementsOf(() =>
      fork().transactional(async (em) => {
        await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [60, 'outer']);
        await em.transactional(async (inner) => {
          await inner.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [61, 'kept']);
        });
        await em.transactional(async () => 'nothing ran');
        await em.execute('INSERT INTO probe (id) VALUES (62)');
        await em.transactional(async (inner) => {
          await inner.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [63, 'kept at commit']);
        });
      }),
    );
    expect(sent).toEqual([
      'begin | INSERT INTO probe (id, note) VALUES ($1::int4, $2)',
      'SAVEPOINT trx1 | INSERT INTO probe (id, note) VALUES ($1::int4, $2)',
      'RELEASE SAVEPOINT trx1;INSERT INTO probe (id) VALUES (62)',
      'SAVEPOINT trx3 | INSERT INTO probe (id, note) VALUES ($1::int4, $2)',
      'COMMIT',
    ]);
    expect(await ids()).toEqual(expect.arrayContaining([60, 61, 62, 63]));
  });

  it('rolls back to a savepoint sent with a statement that failed, and goes on', async () => {
    await fork().transactional(async (em) => {
      await em.execute('INSERT INTO probe (id) VALUES (64)');
      await expect(
        em.transactional(async (inner) => {
          await inner.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [64, 'a duplicate']);
        }),
      ).rejects.toThrow();
      await em.execute('INSERT INTO probe (id) VALUES (65)');
    });
    expect(await ids()).toEqual(expect.arrayContaining([64, 65]));
  });

  it('opens the transaction for a savepoint that comes first', async () => {
    await fork().transactional((em) => em.transactional((inner) => inner.execute('INSERT INTO probe (id) VALUES (8)')));
    expect(await ids()).toContain(8);
  });

  it('flushes entities in the transaction through the query builder and rolls them back with it', async () => {
    await fork()
      .transactional(async (em: EntityManager) => {
        em.create(FeatureFlag, { key: 'probe.rolled-back', enabled: true, updatedBy: 'test' });
        await em.flush();
        expect(await em.findOne(FeatureFlag, { key: 'probe.rolled-back' })).not.toBeNull();
        throw new Error('undo');
      })
      .catch(() => undefined);
    await fork().transactional(async (em: EntityManager) => {
      em.create(FeatureFlag, { key: 'probe.kept', enabled: false, updatedBy: 'test' });
    });
    const flags = await fork().find(FeatureFlag, { key: { $like: 'probe.%' } });
    expect(flags.map((flag) => [flag.key, flag.enabled])).toEqual([['probe.kept', false]]);
  });

  describe('values', () => {
    const values = ['a?b', "it's \\ \"quoted\" $1", JSON.stringify({ k: 'v?' }), null, true, 42.5];
    const query = 'SELECT ? AS text, ? AS tricky, ?::jsonb AS json, ? AS nothing, ? AS yes, ? AS number';
    const expected = [{ text: 'a?b', tricky: "it's \\ \"quoted\" $1", json: { k: 'v?' }, nothing: null, yes: true, number: '42.5' }];
    const asSent = 'SELECT current_query() AS sent, ? AS value';

    it('round-trip as MikroORM wrote them, in and out of a transaction', async () => {
      await expect(fork().execute(query, values)).resolves.toEqual(expected);
      await expect(fork().transactional((em) => em.execute(query, values))).resolves.toEqual(expected);
      await expect(fork().transactional(async (em) => [await em.execute('SELECT 1'), await em.execute(query, values)][1])).resolves.toEqual(expected);
      // MikroORM spreads an array into a comma list: two columns here.
      await expect(fork().execute('SELECT ? AS list', [['x', 'y']])).resolves.toEqual([{ '?column?': 'x', list: 'y' }]);
      // `\\?` is a question mark (jsonb's operator), `??` an identifier.
      await expect(fork().execute(`SELECT '{"k":1}'::jsonb \\? ? AS has, 1 AS ??`, ['k', 'one'])).resolves.toEqual([{ has: true, one: 1 }]);
    });

    it('reach PostgreSQL as bind parameters, never in the text, on every path', async () => {
      const secret = "s3cret'value";
      const expectedRow = [{ sent: 'SELECT current_query() AS sent, $1 AS value', value: secret }];
      await expect(fork().execute(asSent, [secret])).resolves.toEqual(expectedRow);
      await expect(fork().transactional((em) => em.execute(asSent, [secret]))).resolves.toEqual(expectedRow);
      await expect(fork().transactional(async (em) => [await em.execute('SELECT 1'), await em.execute(asSent, [secret])][1])).resolves.toEqual(
        expectedRow,
      );
      await expect(withSession(fork(), (run) => run(asSent, [secret]))).resolves.toEqual(expectedRow);
    });

    it("leave MikroORM's own queries (flush, find) as parameters too", async () => {
      const key = "probe.o'brien\\";
      const spy = jest.spyOn(Client.prototype, 'query');
      try {
        await fork().transactional(async (em) => {
          em.create(FeatureFlag, { key, enabled: true, updatedBy: 'test' });
        });
        expect(await fork().findOne(FeatureFlag, { key })).toMatchObject({ key });
        const calls = spy.mock.calls.flatMap(([sent, sentValues]: unknown[]) =>
          typeof sent === 'string'
            ? [{ text: sent, values: sentValues as unknown[] | undefined }]
            : sent instanceof Pipeline
              ? sent.statements.map((statement) => ({ text: statement.text, values: [...statement.values] as unknown[] }))
              : [sent as { text: string; values?: unknown[] }],
        );
        expect(calls.length).toBeGreaterThanOrEqual(2);
        for (const call of calls) expect(call.text).not.toContain('brien');
        expect(calls.filter((call) => call.values?.includes(key))).toHaveLength(2);
      } finally {
        spy.mockRestore();
      }
    });
  });

  it("keeps MikroORM's exception types and knex's messages", async () => {
    await fork().execute('INSERT INTO probe (id) VALUES (9)');
    const outside = await fork()
      .execute('INSERT INTO probe (id) VALUES (9)')
      .catch((error: unknown) => error);
    expect(outside).toBeInstanceOf(UniqueConstraintViolationException);
    expect(outside).toMatchObject({ message: expect.stringMatching(/^INSERT INTO probe \(id\) VALUES \(9\) - duplicate key/) });
    await expect(fork().transactional((em) => em.execute('INSERT INTO probe (id) VALUES (9)'))).rejects.toBeInstanceOf(
      UniqueConstraintViolationException,
    );
  });

  describe('a failed statement', () => {
    const email = 'alice.secret@example.com';
    /** The line pino writes for `{ err }`, as every logger of the product does. */
    function logLineOf(error: unknown): string {
      const lines: string[] = [];
      pino({ base: undefined }, { write: (line: string) => lines.push(line) }).error({ err: error }, 'statement failed');
      return lines.join('');
    }
    const failure = (work: Promise<unknown>) => work.then(() => expect('the statement').toBe('rejected'), (error: unknown) => error);

    beforeAll(async () => {
      await fork().execute(`CREATE TABLE probe_people (email text UNIQUE, age int CHECK (age >= 0), profile jsonb)`);
      await fork().execute('INSERT INTO probe_people (email) VALUES (?)', [email]);
    });

    it.each([
      ['a unique key taken (the value in its detail)', 'INSERT INTO probe_people (email) VALUES (?)', [email], '23505'],
      ['a check failed (the row in its detail)', 'INSERT INTO probe_people (email, age) VALUES (?, ?)', [`x${email}`, -1], '23514'],
      ['a value of the wrong type (the value in its message)', 'SELECT ?::uuid', [email], '22P02'],
      ['a JSON text that does not parse (the text in its context)', 'SELECT ?::jsonb', [`{"email": "${email}`], '22P02'],
      ['a number out of range (the value in its message)', 'SELECT ?::smallint', ['4242424242'], '22003'],
    ])('names its code and statement and quotes no value, wherever it is logged: %s', async (_case, sql, params, code) => {
      for (const run of [
        () => fork().execute(sql, params),
        () => fork().transactional((em) => em.execute(sql, params)),
        () => withSession(fork(), (query) => query(sql, params)),
      ]) {
        const error = await failure(run());
        expect(error).toMatchObject({ code, message: expect.stringMatching(/^(SELECT|INSERT) .*\$1.* - /) });
        const logged = logLineOf(error);
        expect(logged).toContain(code);
        for (const secret of [email, '4242424242']) expect(logged).not.toContain(secret);
        expect(JSON.stringify(error)).not.toContain(email);
      }
    });

    it('through a prepared statement as well', async () => {
      const insertPerson = preparedStatement('INSERT INTO probe_people (email) VALUES ($1::text)', { purpose: 'person insert', indexes: ['probe_people_email_key'] });
      for (const run of [
        () => executePrepared(fork(), insertPerson, [email]),
        () => runInTransaction(fork(), (em) => executePrepared(em, insertPerson, [email])),
      ]) {
        const error = await failure(run());
        expect(error).toBeInstanceOf(UniqueConstraintViolationException);
        expect(logLineOf(error)).not.toContain(email);
        expect(logLineOf(error)).toContain('duplicate key value violates unique constraint \\"probe_people_email_key\\"');
      }
    });
  });

  it('refuses statements on a transaction that has ended', async () => {
    let finished: EntityManager | undefined;
    await fork().transactional(async (em) => {
      finished = em;
      await em.execute('SELECT 1');
    });
    const late = await finished?.execute('SELECT 1').catch((error: unknown) => error);
    expect(late).toMatchObject({ name: 'DriverException', message: new TransactionCompleteError('SELECT 1').message });
  });

  describe('prepared statements', () => {
    const insertProbe = preparedStatement('INSERT INTO probe (id, note) VALUES ($1::int, $2::text) RETURNING id, note', { purpose: 'probe insert', indexes: ['probe_pkey'] });
    const isPrepared = preparedStatement('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1::text', {
      purpose: 'prepared statement check',
      indexes: [],
    });

    it('run after the BEGIN still due, inside the transaction', async () => {
      const sent = await statementsOf(() =>
        runInTransaction(fork(), async (em) => {
          await expect(executePrepared(em, insertProbe, [20, 'twenty'])).resolves.toEqual([{ id: 20, note: 'twenty' }]);
          // Same connection, same transaction: the statement is prepared there, under its own name;
          // behind a transaction pooler nothing is (the next transaction may get another server connection).
          expect(await executePrepared(em, isPrepared, [insertProbe.name])).toEqual([{ n: behindPooler ? 0 : 1 }]);
        }),
      );
      // A statement not parsed on the connection yet goes after BEGIN; an unnamed one (behind a pooler) rides on it.
      expect(sent).toEqual(behindPooler ? [`begin | ${insertProbe.text}`, isPrepared.text, 'COMMIT'] : ['begin', insertProbe.text, isPrepared.text, 'COMMIT']);
      expect(await ids()).toContain(20);
    });

    it('are rolled back with the transaction they opened', async () => {
      await runInTransaction(fork(), async (em) => {
        await executePrepared(em, insertProbe, [21, null]);
        throw new Error('undo');
      }).catch((error: Error) => expect(error.message).toBe('undo'));
      expect(await ids()).not.toContain(21);
    });

    it('abort the transaction when they fail, with MikroORM exceptions', async () => {
      await runInTransaction(fork(), async (em) => {
        const failure = await executePrepared(em, insertProbe, [1, 'duplicate']).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(UniqueConstraintViolationException);
        expect(failure).toMatchObject({ message: expect.stringMatching(/^INSERT INTO probe .* - duplicate key/) });
        await expect(em.execute('INSERT INTO probe (id) VALUES (22)')).rejects.toMatchObject({ code: '25P02' });
      });
      expect(await ids()).not.toContain(22);
    });

    it('report a statement that does not parse, every time, and leave the connection usable', async () => {
      const broken = preparedStatement('INSERT INTO no_such_table (id) VALUES ($1::int)', { purpose: 'broken insert', indexes: [] });
      for (let attempt = 0; attempt < 2; attempt++) {
        await expect(runInTransaction(fork(), (em) => executePrepared(em, broken, [1]))).rejects.toThrow(/relation "no_such_table" does not exist/);
      }
      await runInTransaction(fork(), (em) => executePrepared(em, insertProbe, [23, 'after']));
      expect(await ids()).toContain(23);
    });

    it('run as autocommit statements outside a transaction, and in a savepoint of one', async () => {
      await expect(executePrepared(fork(), insertProbe, [24, 'alone'])).resolves.toEqual([{ id: 24, note: 'alone' }]);
      await fork().transactional(async (em) => {
        await em.execute('INSERT INTO probe (id) VALUES (25)');
        await em.transactional((inner) => executePrepared(inner, insertProbe, [26, 'nested']));
      });
      expect(await ids()).toEqual(expect.arrayContaining([24, 25, 26]));
    });
  });

  describe('writes sent with COMMIT (executePreparedAtCommit)', () => {
    const queueProbe = preparedStatement('INSERT INTO probe (id, note) VALUES ($1::int, $2::text)', { purpose: 'probe outbox row', indexes: ['probe_pkey'] });
    const POOL_SIZE = 5;

    /** Parses `queueProbe` on every pooled connection (in transactions rolled back), so each can pipeline it. */
    beforeAll(async () => {
      await Promise.all(
        Array.from({ length: POOL_SIZE }, (_, index) =>
          runInTransaction(fork(), async (em) => {
            await executePrepared(em, queueProbe, [900 + index, null]);
            await em.execute('SELECT pg_sleep(0.05)');
            throw new Error('warm-up only');
          }).catch((error: Error) => expect(error.message).toBe('warm-up only')),
        ),
      );
    });

    const idleInTransaction = async () =>
      (
        await fork().execute<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        )
      )[0].n;

    it('travel with COMMIT, and BEGIN with the first statement: two round trips in all', async () => {
      const sent = await statementsOf(() =>
        runInTransaction(fork(), async (em) => {
          await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [30, 'record']);
          await executePreparedAtCommit(em, queueProbe, [31, 'outbox row']);
          // Not sent yet: nothing in the transaction reads it back.
          expect(await em.execute('SELECT id FROM probe WHERE id = 31')).toEqual([]);
        }),
      );
      expect(sent).toEqual(['begin | INSERT INTO probe (id, note) VALUES ($1::int4, $2)', 'SELECT id FROM probe WHERE id = 31', `${queueProbe.text} | COMMIT`]);
      expect(await ids()).toEqual(expect.arrayContaining([30, 31]));
    });

    it('make a transaction of nothing else one round trip', async () => {
      const sent = await statementsOf(() => runInTransaction(fork(), (em) => executePreparedAtCommit(em, queueProbe, [32, 'alone'])));
      expect(sent).toEqual([`begin | ${queueProbe.text} | COMMIT`]);
      expect(await ids()).toContain(32);
    });

    it('fail the commit when they fail: nothing commits, the error names the statement and quotes no value', async () => {
      const failure = await runInTransaction(fork(), async (em) => {
        await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [33, 'record']);
        await executePreparedAtCommit(em, queueProbe, [30, 'secret-note']); // 30 exists
      }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: '23505', message: expect.stringMatching(/^INSERT INTO probe \(id, note\) VALUES \(\$1::int, \$2::text\) - duplicate key/) });
      expect(JSON.stringify({ ...(failure as object), message: (failure as Error).message })).not.toContain('(30)');
      expect(await ids()).not.toContain(33);
      expect(await idleInTransaction()).toBe(0);
      await runInTransaction(fork(), (em) => executePreparedAtCommit(em, queueProbe, [34, 'next']));
      expect(await ids()).toContain(34);
    });

    it('are dropped with a transaction that rolls back', async () => {
      const sent = await statementsOf(() =>
        runInTransaction(fork(), async (em) => {
          await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [35, 'record']);
          await executePreparedAtCommit(em, queueProbe, [36, 'outbox row']);
          throw new Error('undo');
        }).catch((error: Error) => expect(error.message).toBe('undo')),
      );
      expect(sent).toEqual(['begin | INSERT INTO probe (id, note) VALUES ($1::int4, $2)', 'ROLLBACK']);
      expect(await ids()).not.toContain(35);
      expect(await ids()).not.toContain(36);
    });

    it('run at once outside a transaction, and in a savepoint, whose rollback takes them back', async () => {
      await executePreparedAtCommit(fork(), queueProbe, [37, 'autocommit']);
      expect(await ids()).toContain(37);
      await runInTransaction(fork(), async (em) => {
        await em.execute('INSERT INTO probe (id) VALUES (38)');
        await em
          .transactional(async (inner) => {
            await executePreparedAtCommit(inner, queueProbe, [39, 'in the savepoint']);
            expect(await inner.execute('SELECT id FROM probe WHERE id = 39')).toEqual([{ id: 39 }]);
            throw new Error('roll the savepoint back');
          })
          .catch((error: Error) => expect(error.message).toBe('roll the savepoint back'));
      });
      const present = await ids();
      expect(present).toContain(38);
      expect(present).not.toContain(39);
    });

    it('go on their own before COMMIT on a connection that has not parsed them yet', async () => {
      const firstUse = preparedStatement('INSERT INTO probe (id, note) VALUES ($1::int, $2::text) -- first use', { purpose: 'probe outbox row', indexes: ['probe_pkey'] });
      const sent = await statementsOf(() =>
        runInTransaction(fork(), async (em) => {
          await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [40, 'record']);
          await executePreparedAtCommit(em, firstUse, [41, 'outbox row']);
        }),
      );
      // Behind a transaction pooler no statement is named, so every one can go with COMMIT.
      expect(sent).toEqual(
        behindPooler
          ? ['begin | INSERT INTO probe (id, note) VALUES ($1::int4, $2)', `${firstUse.text} | COMMIT`]
          : ['begin | INSERT INTO probe (id, note) VALUES ($1::int4, $2)', firstUse.text, 'COMMIT'],
      );
      expect(await ids()).toEqual(expect.arrayContaining([40, 41]));
    });
  });

  it('takes a pooled connection only for its first statement, not for the work before it', async () => {
    // Six transactions on a pool of five, each waiting for all six to have started before sending anything.
    const started = 6;
    let arrived = 0;
    let everyoneHere!: () => void;
    const barrier = new Promise<void>((resolve) => (everyoneHere = resolve));
    const transactions = Array.from({ length: started }, (_, index) =>
      runInTransaction(fork(), async (em) => {
        if (++arrived === started) everyoneHere();
        await barrier;
        await em.execute('INSERT INTO probe (id, note) VALUES (?, ?)', [50 + index, 'late connection']);
      }),
    );
    await Promise.race([barrier, new Promise((_, reject) => setTimeout(() => reject(new Error('a transaction held a connection before its first statement')), 2000))]);
    await Promise.all(transactions);
    expect(await ids()).toEqual(expect.arrayContaining([50, 51, 52, 53, 54, 55]));
  });

  it('hands every connection back to the pool outside any transaction', async () => {
    for (let round = 0; round < 12; round++) {
      await fork()
        .transactional(async (em) => {
          await em.execute(round % 3 === 0 ? 'SELEC 1' : 'SELECT 1');
          if (round % 2 === 0) throw new Error('fail this round');
        })
        .catch(() => undefined);
    }
    const [{ stuck }] = await fork().execute<Array<{ stuck: number }>>(
      `SELECT count(*)::int AS stuck FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    expect(stuck).toBe(0);
  });
});
