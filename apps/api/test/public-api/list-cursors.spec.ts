import { createHash, createHmac, randomBytes } from 'node:crypto';
import { startTestApi, type TestApi } from '../support/test-api';
import {
  createOrganizationWithKey,
  publicApi,
  queryDatabase,
  withoutRequestId,
  type OrganizationWithKey,
  type PublicApiClient,
} from '../support/public-api-fixtures';

interface Page {
  items: Array<{ id: string; title: string }>;
  nextCursor: string | null;
}

interface CursorPayload {
  b: string;
  v: unknown[];
  i: string;
}

const payloadOf = (cursor: string): CursorPayload => JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));

/** A cursor as only a holder of `secret` can make one: any payload, correctly signed. */
function signedWith(secret: string, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22)}`;
}

/** The reference a cursor carries instead of a long sort value: a digest of the value. */
const reference = (value: string) => ({ h: createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 24) });

/** The secret the source carried before cursors were signed per deployment. */
const SECRET_FROM_THE_SOURCE = 'data-models.cursor.v1';

/**
 * Records-list cursors are signed with the deployment's CURSOR_SECRET and continue only from a
 * row the list itself shows the caller. Every cursor that cannot continue gets one answer, so a
 * cursor cannot confirm anything about records hidden from the caller.
 */
describe('GET /models/{key}/records cursors', () => {
  const secret = randomBytes(32).toString('base64url');
  let api: TestApi;
  let org: OrganizationWithKey;
  let owner: PublicApiClient;
  let member: PublicApiClient;
  let ownerRoleId: string;
  const records = '/models/tasks/records';
  // Titles long enough that a cursor refers to its row's title instead of carrying it.
  const titleOf = (index: number) => `${String(index).padStart(3, '0')} ${'Ωμέγα ключ 中文 '.repeat(40)}`;
  const count = 9;

  beforeAll(async () => {
    api = await startTestApi({ CURSOR_SECRET: secret, PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    owner = publicApi(api, org.key.token);
    const someone = await org.addMember(['member']);
    member = publicApi(api, (await org.createKey({ name: 'member key' }, someone.session)).token);
    for (let index = 0; index < count; index++) {
      expect((await owner.post(records, { data: { title: titleOf(index), amount: index } })).status).toBe(201);
    }
    const roles = await org.rpc<{ items: Array<{ id: string; key: string }> }>('rbac.roles.list', {});
    ownerRoleId = roles.items.find((role) => role.key === 'owner')!.id;
  });
  afterAll(() => api.close());

  const page = async (client: PublicApiClient, query: string): Promise<Page> => {
    const response = await client.get(`${records}?${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  };
  const withCursor = (query: string, cursor: string) => `${query}&cursor=${encodeURIComponent(cursor)}`;

  /** The whole answer (status and body) to a cursor. */
  const answerTo = async (client: PublicApiClient, query: string, cursor: string) => {
    const response = await client.get(`${records}?${withCursor(query, cursor)}`);
    return { status: response.status, body: withoutRequestId(await response.json()) };
  };

  /** The answer to a cursor of random characters: every refused cursor must get exactly this. */
  let refusal: { status: number; body: unknown };
  beforeAll(async () => {
    const random = `${randomBytes(90).toString('base64url')}.${randomBytes(16).toString('base64url').slice(0, 22)}`;
    refusal = await answerTo(member, 'sort=title&limit=3', random);
  });

  it('answers a cursor it cannot continue with a 400 naming the cursor, which says to start again', () => {
    expect(refusal).toEqual({
      status: 400,
      body: {
        error: {
          code: 'validation_failed',
          message: expect.stringMatching(/first page/),
          details: [{ field: 'cursor', code: 'invalid_format', message: expect.stringMatching(/first page/) }],
        },
      },
    });
  });

  it('pages exactly: every record once, in order, whether the cursor carries its values or refers to its row', async () => {
    for (const sort of ['title', '-title', 'amount', '-createdAt']) {
      const all = (await page(member, `sort=${sort}&limit=100`)).items.map((record) => record.id);
      expect(all).toHaveLength(count);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const next: Page = await page(member, `sort=${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...next.items.map((record) => record.id));
        cursor = next.nextCursor;
      } while (cursor);
      expect({ sort, seen }).toEqual({ sort, seen: all });
    }
    const byTitle = await page(member, 'sort=title&limit=2');
    expect(payloadOf(byTitle.nextCursor!).v).toEqual([reference(byTitle.items[1].title)]);
  });

  it('refuses a forged signature, and a cursor signed with the secret that used to be in the source', async () => {
    const { nextCursor } = await page(member, 'sort=title&limit=3');
    const [body, mac] = nextCursor!.split('.');
    const tampered = `${body}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    expect(await answerTo(member, 'sort=title&limit=3', tampered)).toEqual(refusal);
    expect(await answerTo(member, 'sort=title&limit=3', signedWith(SECRET_FROM_THE_SOURCE, payloadOf(nextCursor!)))).toEqual(refusal);
    expect(await answerTo(member, 'sort=title&limit=3', nextCursor!)).toMatchObject({ status: 200 });
  });

  it('refuses a cursor of another deployment (another CURSOR_SECRET), even over the same database', async () => {
    const elsewhere = await startTestApi({ CURSOR_SECRET: randomBytes(32).toString('base64url'), PUBLIC_API_BURST: '1000' }, { database: api.database });
    try {
      const there = publicApi(elsewhere, org.key.token);
      for (const query of ['sort=title&limit=3', 'sort=amount&limit=3']) {
        const fromElsewhere = (await page(there, query)).nextCursor!;
        expect(await answerTo(owner, query, fromElsewhere)).toEqual(refusal);
        const fromHere = (await page(owner, query)).nextCursor!;
        expect(await answerTo(there, query, fromHere)).toEqual(refusal);
        expect(await answerTo(owner, query, fromHere)).toMatchObject({ status: 200 });
      }
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses a cursor of another sort, filter or model with the same answer', async () => {
    const { nextCursor } = await page(member, 'sort=title&limit=3');
    expect(await answerTo(member, 'sort=-title&limit=3', nextCursor!)).toEqual(refusal);
    const filter = encodeURIComponent(JSON.stringify({ field: 'amount', op: 'gte', value: 0 }));
    expect(await answerTo(member, `sort=title&limit=3&filter=${filter}`, nextCursor!)).toEqual(refusal);
    await org.rpc('dataModels.create', { key: 'others', name: 'Others' });
    const response = await member.get(`/models/others/records?${withCursor('sort=title&limit=3', nextCursor!)}`);
    expect({ status: response.status, body: withoutRequestId(await response.json()) }).toEqual(refusal);
  });

  describe('a cursor whose row the list no longer shows the caller', () => {
    it('refuses a cursor whose row was soft-deleted', async () => {
      const first = await page(owner, 'sort=title&limit=2');
      const anchor = first.items[1].id;
      expect((await owner.delete(`/records/${anchor}`)).status).toBe(200);
      try {
        expect(await answerTo(owner, 'sort=title&limit=2', first.nextCursor!)).toEqual(refusal);
      } finally {
        await org.rpc('records.restore', { id: anchor });
      }
    });

    it('refuses a cursor whose row became hidden from the caller by row-level access', async () => {
      const first = await page(member, 'sort=title&limit=2');
      const anchor = first.items[1].id;
      await org.rpc('records.setAccess', { id: anchor, roleIds: [ownerRoleId] });
      try {
        expect(await answerTo(member, 'sort=title&limit=2', first.nextCursor!)).toEqual(refusal);
        expect(await answerTo(owner, 'sort=title&limit=2', first.nextCursor!)).toMatchObject({ status: 200 });
      } finally {
        await org.rpc('records.setAccess', { id: anchor, roleIds: [] });
      }
    });

    it("confirms nothing about a hidden record's values, even to a cursor signed with the deployment's secret", async () => {
      const { nextCursor } = await page(member, 'sort=title&limit=2');
      const binding = payloadOf(nextCursor!).b;
      const [hidden] = await queryDatabase<{ id: string; title: string }>(
        api,
        `SELECT id, title FROM records WHERE organization_id = $1 AND title LIKE '004 %'`,
        [org.organizationId],
      );
      const guess = (title: string) => signedWith(secret, { b: binding, v: [reference(title)], i: hidden.id });

      // While visible, such a cursor is as good as one the server issued: the signature is the deployment's.
      expect(await answerTo(member, 'sort=title&limit=2', guess(hidden.title))).toMatchObject({ status: 200 });
      await org.rpc('records.setAccess', { id: hidden.id, roleIds: [ownerRoleId] });
      try {
        expect(await answerTo(owner, 'sort=title&limit=2', guess(hidden.title))).toMatchObject({ status: 200 });
        // Hidden from the member: a right guess, a wrong guess and random characters answer alike.
        expect(await answerTo(member, 'sort=title&limit=2', guess(hidden.title))).toEqual(refusal);
        expect(await answerTo(member, 'sort=title&limit=2', guess(`${hidden.title}?`))).toEqual(refusal);
      } finally {
        await org.rpc('records.setAccess', { id: hidden.id, roleIds: [] });
      }
    });
  });
});
