import { createTestOrm, statementsOf, type TestOrm } from '@mrp/platform/testing';
import { platformModule } from '../../platform-module';
import { executeStreamed } from './execute-prepared';
import { RowHandlerError } from './statement';
import { leavesConnectionUnusable } from './statement-errors';

describe('executeStreamed (rows handed over as they arrive, none kept)', () => {
  let db: TestOrm;
  const fork = () => db.orm.em.fork();

  beforeAll(async () => {
    db = await createTestOrm([platformModule]);
  });
  afterAll(() => db.close());

  const series = (em = fork(), to = 5000) => {
    const rows: Array<ReadonlyArray<string | null>> = [];
    const counted = executeStreamed(em, "SELECT n, 'line ' || n, now()::timestamptz, NULL FROM generate_series(1, ?::int) AS n", [to], (values) => rows.push(values));
    return { rows, counted };
  };

  it('hands every row over in order as its text values, autocommit, and counts them', async () => {
    const { rows, counted } = series();
    expect(await counted).toBe(5000);
    expect(rows).toHaveLength(5000);
    expect(rows[0].slice(0, 2)).toEqual(['1', 'line 1']);
    expect(rows[4999].slice(0, 2)).toEqual(['5000', 'line 5000']);
    // As PostgreSQL wrote them: no type parsing (a timestamp stays its text), NULL as null.
    expect(rows[0][2]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    expect(rows[0][3]).toBeNull();
  });

  it('runs in the transaction: as its first statement (BEGIN pipelined with it) and after others', async () => {
    const received: number[] = [];
    const sent = await statementsOf(() =>
      fork().transactional(async (em) => {
        const first = series(em, 3);
        expect(await first.counted).toBe(3);
        received.push(first.rows.length);
        await em.execute("SELECT set_config('probe.mark', 'inside', true)");
        const rows: string[] = [];
        await executeStreamed(em, "SELECT current_setting('probe.mark') FROM generate_series(1, ?::int)", [2], (values) => rows.push(values[0] as string));
        // The setting is local to the transaction: the streamed statement ran inside it.
        expect(rows).toEqual(['inside', 'inside']);
        received.push(rows.length);
      }),
    );
    expect(received).toEqual([3, 2]);
    expect(sent[0]).toMatch(/^begin \| SELECT n, /);
    expect(sent.at(-1)).toBe('COMMIT');
  });

  class ConsumerBroke extends Error {}
  it("fails the statement with the handler's own first error once the answer is read, and keeps the connection", async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      let calls = 0;
      const failing = executeStreamed(fork(), 'SELECT n FROM generate_series(1, 100) AS n', [], () => {
        calls++;
        if (calls === 10) throw new ConsumerBroke('the consumer broke');
      });
      // The handler's error itself, not a database error wrapping it.
      await expect(failing).rejects.toBeInstanceOf(ConsumerBroke);
      // The handler is not called again after its failure.
      expect(calls).toBe(10);
    }
    const { counted } = series(fork(), 3);
    expect(await counted).toBe(3);
    // Its connection is not ended as one a failed statement left unusable: the answer was read to its end.
    expect(leavesConnectionUnusable(new RowHandlerError(new ConsumerBroke('the consumer broke')))).toBe(false);
  });

  it("leaves the transaction usable when a handler fails on its first statement (sent with BEGIN): PostgreSQL ran both", async () => {
    await fork().execute('CREATE TABLE IF NOT EXISTS streamed_probe (n int)');
    await fork().transactional(async (em) => {
      const failing = executeStreamed(em, 'SELECT n FROM generate_series(1, ?::int) AS n', [5], () => {
        throw new ConsumerBroke('not this one');
      });
      await expect(failing).rejects.toBeInstanceOf(ConsumerBroke);
      await em.execute('INSERT INTO streamed_probe (n) VALUES (?)', [42]);
    });
    expect(await fork().execute('SELECT n FROM streamed_probe')).toEqual([{ n: 42 }]);
  });

  it('fails like any statement on a database error, rolling the transaction back', async () => {
    const failing = fork().transactional((em) => executeStreamed(em, 'SELECT 1 / (n - 3) FROM generate_series(1, 5) AS n', [], () => undefined));
    await expect(failing).rejects.toThrow(/division by zero/);
  });
});
