import { Client } from 'pg';
import { Pipeline } from '../src/database/pipeline';

/**
 * The statements that reach PostgreSQL while `work` runs, in order: one entry per round trip
 * through `pg`. A BEGIN riding on a statement as one message is `begin;<statement>`; statements
 * pipelined in one round trip are joined by ` | ` (`begin | INSERT ...`, `INSERT ... | COMMIT`).
 */
export async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  return (await roundTripsOf(work)).map((roundTrip) => roundTrip.text);
}

/** What one call of `pg`'s `query` sent (see `statementsOf`), and on which connection. */
export interface RoundTrip {
  text: string;
  connection: Client;
  /** jest's call order across every mock, to place the round trip among other spied calls. */
  order: number;
}

/** `statementsOf`, with the pooled connection each round trip went out on. */
export async function roundTripsOf(work: () => Promise<unknown>): Promise<RoundTrip[]> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    await work();
    return spy.mock.calls.map(([query]: unknown[], index) => ({
      text: roundTripText(query),
      connection: spy.mock.contexts[index] as Client,
      order: spy.mock.invocationCallOrder[index],
    }));
  } finally {
    spy.mockRestore();
  }
}

/** The text of one `query` call's argument, as `statementsOf` lists it. */
export function roundTripText(query: unknown): string {
  if (typeof query === 'string') return query;
  if (query instanceof Pipeline) return query.statements.map((statement) => statement.text).join(' | ');
  return (query as { text: string }).text;
}

/** The statements of `statementsOf`, one entry per statement whether or not it shared its round trip. */
export async function sentStatements(work: () => Promise<unknown>): Promise<string[]> {
  return (await statementsOf(work)).flatMap((roundTrip) => roundTrip.split(' | '));
}
