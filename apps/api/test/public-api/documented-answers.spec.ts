import type { OpenAPIV3_1 } from 'openapi-types';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, publicApi, type OrganizationWithKey } from '../support/public-api-fixtures';
import { answerProblems, expectDocumentedAnswer } from '../support/openapi-answers';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'r-1', ...headers } });

/**
 * The checker every /api/v1 suite's client runs on each answer: it must fail on what the document
 * does not describe, or the suites prove nothing about the document.
 */
describe('answers are checked against the document served for the key', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let typed: OpenAPIV3_1.Document;
  let recordId: string;
  let record: Record<string, unknown>;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api);
    typed = (await (await api.openApiDocument(org.key.token)).json()) as OpenAPIV3_1.Document;
    const created = await publicApi(api, org.key.token).post(`/models/${org.modelKey}/records`, { data: { title: 'Checked', amount: 1.5 } });
    record = (await created.json()) as Record<string, unknown>;
    recordId = String(record['id']);
  });
  afterAll(() => api.close());

  const problemsOf = (method: string, path: string, answer: Response) => answerProblems(typed, { method, path }, answer);

  it('finds nothing wrong with the real answers', async () => {
    const client = publicApi(api, org.key.token);
    const read = await client.get(`/records/${recordId}`);
    expect(await problemsOf('GET', `/records/${recordId}`, read)).toEqual([]);
    const projected = await client.get(`/models/${org.modelKey}/records?fields=amount`);
    expect(await problemsOf('GET', `/models/${org.modelKey}/records?fields=amount`, projected)).toEqual([]);
  });

  it('fails a status the operation does not list', async () => {
    expect(await problemsOf('GET', '/me', json(418, { error: { code: 'teapot' } }))).toEqual([expect.stringMatching(/^status 418 is not documented for getMe/)]);
  });

  it('fails a body that does not fit the schema: a required property missing, a typed field of another type', async () => {
    const { title: _title, ...withoutTitle } = record['data'] as Record<string, unknown>;
    const created = (data: unknown) => json(201, { ...record, data }, { ETag: '"1"', Location: `/api/v1/records/${recordId}` });
    // The create answer is one record or a batch (oneOf): the problems name the record's too.
    expect(await problemsOf('POST', `/models/${org.modelKey}/records`, created(withoutTitle))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^body: \/data must have required property 'title'/)]),
    );
    expect(await problemsOf('POST', `/models/${org.modelKey}/records`, created({ ...(record['data'] as object), amount: 'a lot' }))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^body: \/data\/amount must be/)]),
    );
    expect(await problemsOf('GET', '/me', json(404, { error: { message: 'no code' } }))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^body: \/error must have required property 'code'/)]),
    );
  });

  it('fails a documented header of the wrong shape or missing, a body where none is documented, and a missing one', async () => {
    const limited = json(429, { error: { code: 'rate_limited', message: 'Slow down', requestId: 'r-1' } }, { 'Retry-After': 'soon' });
    expect(await problemsOf('GET', '/me', limited)).toEqual([expect.stringMatching(/^header Retry-After: "soon" \(root\) must be integer/)]);
    // fetch's Response cannot be built with a 304 and a body; the server could still send one.
    const notModified = Object.defineProperty(json(200, { unexpected: true }, { ETag: '"1"' }), 'status', { value: 304 });
    expect(await problemsOf('GET', `/records/${recordId}`, notModified)).toEqual([expect.stringMatching(/^304 of getRecord is documented without a body/)]);
    expect(await problemsOf('GET', '/me', new Response('', { status: 200 }))).toEqual([
      'header X-Request-Id is required but missing',
      expect.stringMatching(/^200 of getMe is documented with a JSON body, but none came/),
    ]);
    const { etag: _etag, ...headers } = Object.fromEntries(json(200, record).headers);
    expect(await problemsOf('GET', `/records/${recordId}`, new Response(JSON.stringify(record), { status: 200, headers }))).toEqual([
      'header ETag is required but missing',
    ]);
  });

  it('fails a success to a request the document has no operation for, and an error body out of shape', async () => {
    expect(await problemsOf('GET', '/nowhere', json(200, {}))).toEqual(expect.arrayContaining(['200 to a request the document has no operation for']));
    expect(await problemsOf('GET', '/nowhere', json(404, { error: { code: 'not_found', message: 'No route', requestId: 'r-1' } }))).toEqual([]);
  });

  it('throws, naming the problem, when an answer does not fit even the document read again', async () => {
    await expect(expectDocumentedAnswer(api, org.key.token, { method: 'GET', path: '/me' }, json(418, {}))).rejects.toThrow(
      /The answer to GET \/api\/v1\/me is not what the OpenAPI document says:\n- status 418 is not documented/,
    );
  });
});
