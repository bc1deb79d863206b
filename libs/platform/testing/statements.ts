import { Client } from 'pg';

/**
 * The statements that reach PostgreSQL while `work` runs, in order: one entry per round trip
 * through `pg` (a BEGIN riding on a statement, `begin;<statement>`, is one entry).
 */
export async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    await work();
    return spy.mock.calls.map(([query]) => (typeof query === 'string' ? query : (query as { text: string }).text));
  } finally {
    spy.mockRestore();
  }
}
