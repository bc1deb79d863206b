import { Client } from 'pg';
import { Pipeline } from '../src/database/driver/pipeline';

/**
 * The statements that reach PostgreSQL while `work` runs, in order: one entry per round trip
 * through `pg`. A BEGIN riding on a statement as one message is `begin;<statement>`; statements
 * pipelined in one round trip are joined by ` | ` (`begin | INSERT ...`, `INSERT ... | COMMIT`).
 */
export async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    await work();
    return spy.mock.calls.map(([query]: unknown[]) => {
      if (typeof query === 'string') return query;
      if (query instanceof Pipeline) return query.statements.map((statement) => statement.text).join(' | ');
      return (query as { text: string }).text;
    });
  } finally {
    spy.mockRestore();
  }
}

/** The statements of `statementsOf`, one entry per statement whether or not it shared its round trip. */
export async function sentStatements(work: () => Promise<unknown>): Promise<string[]> {
  return (await statementsOf(work)).flatMap((roundTrip) => roundTrip.split(' | '));
}
