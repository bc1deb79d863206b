import { connect } from 'node:net';
import { Client } from 'pg';
import { roundTripText, roundTripsOf, type RoundTrip } from '@mrp/platform/testing';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, type OrganizationWithKey, type PublicApiClient } from '../support/public-api-fixtures';

const KEY_LOOKUP = /WITH api_key AS/;

interface PoolUse {
  /** Every round trip, in order, with its connection. */
  sent: RoundTrip[];
  /** Every connection given back to the pool, in the same order. */
  released: Array<{ connection: Client; order: number }>;
}

/**
 * Checks that a request's key lookup and its record statements went out on one connection that
 * stayed taken from the first to the last of them (an idle pool may well hand the same
 * connection out twice; what matters is that it was not given back in between).
 */
function expectOneTake({ sent, released }: PoolUse, recordStatement: RegExp): void {
  const keyLookup = sent.filter((statement) => KEY_LOOKUP.test(statement.text));
  const recordWork = sent.filter((statement) => recordStatement.test(statement.text));
  expect(keyLookup).toHaveLength(1);
  expect(recordWork.length).toBeGreaterThan(0);
  const [{ connection, order: first }] = keyLookup;
  expect(recordWork.every((statement) => statement.connection === connection)).toBe(true);
  const last = recordWork[recordWork.length - 1].order;
  expect(released.filter((release) => release.connection === connection && release.order > first && release.order < last)).toEqual([]);
}

/**
 * A request on the public API takes one connection from the pool for its key lookup and keeps it
 * for its procedure's statements (its transaction included): one wait for the pool per request.
 */
describe('/api/v1 pooled connections', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let client: PublicApiClient;
  let records: string;
  const knexClient = () => api.runtime.orm.em.getConnection().getKnex().client as { pool: { numUsed(): number }; releaseConnection(connection: Client): Promise<void> };
  const pool = () => knexClient().pool;

  async function poolUseOf(work: () => Promise<unknown>): Promise<PoolUse> {
    const releases = jest.spyOn(knexClient(), 'releaseConnection');
    try {
      return {
        sent: await roundTripsOf(work),
        released: releases.mock.calls.map(([connection], index) => ({ connection, order: releases.mock.invocationCallOrder[index] })),
      };
    } finally {
      releases.mockRestore();
    }
  }

  // Work a request leaves behind (its key's last-used time) may still hold one for a moment.
  const allConnectionsBack = () => waitUntil(() => pool().numUsed() === 0, 'every pooled connection back in the pool');

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    client = publicApi(api, org.key.token);
    records = `/models/${org.modelKey}/records`;
  });
  afterAll(() => api.close());

  it('a POST looks up its key and writes its record in a transaction on one connection', async () => {
    let status = 0;
    const use = await poolUseOf(async () => {
      status = (await client.post(records, { data: { title: 'One connection' } })).status;
    });
    expect(status).toBe(201);
    const transaction = /^begin|INSERT INTO records|COMMIT$/i;
    expect(use.sent.filter((statement) => transaction.test(statement.text)).length).toBeGreaterThanOrEqual(2);
    expectOneTake(use, transaction);
    await allConnectionsBack();
  });

  it('a GET looks up its key and reads its record on one connection', async () => {
    const created = (await (await client.post(records, { data: { title: 'Read me' } })).json()) as { id: string };
    let status = 0;
    const use = await poolUseOf(async () => {
      status = (await client.get(`/records/${created.id}`)).status;
    });
    expect(status).toBe(200);
    expectOneTake(use, /FROM records/);
    await allConnectionsBack();
  });

  it('a refused request gives its connection back', async () => {
    const response = await client.post(records, { data: { no_such_field: 1 } });
    expect(response.status).toBe(400);
    await allConnectionsBack();
  });

  it('keeps no connection while the client has not sent all of its body, and then writes the record', async () => {
    const url = new URL(api.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((done) => socket.once('connect', () => done()));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    const body = JSON.stringify({ data: { title: 'Sent slowly' } });
    const half = Math.floor(body.length / 2);
    const spy = jest.spyOn(Client.prototype, 'query');
    try {
      socket.write(
        `POST /api/v1${records} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${org.key.token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`,
      );
      const sentTexts = () => spy.mock.calls.map(([query]) => roundTripText(query));
      // Once the key lookup has run, the request waits for the rest of its body, holding no connection.
      await waitUntil(() => sentTexts().some((text) => KEY_LOOKUP.test(text)) && pool().numUsed() === 0, 'the key lookup sent and no connection in use');
      expect(answer).toBe('');
      socket.write(body.slice(half));
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(sentTexts().some((text) => /INSERT INTO records/.test(text))).toBe(true);
    } finally {
      spy.mockRestore();
    }
    await allConnectionsBack();
  });
});


async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Not within 10 s: ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}
