import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, type OrganizationWithKey } from './support/public-api-fixtures';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request whose answer is read as sent: fetch would decompress it out of sight. */
function rawGet(api: TestApi, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${api.url}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

describe('compression of JSON answers', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let recordId: string;
  beforeAll(async () => {
    api = await startTestApi();
    org = await createOrganizationWithKey(api);
    const created = await api.request(`/api/v1/models/${org.modelKey}/records`, { method: 'POST', token: org.key.token, json: { data: { title: 'Small' } } });
    recordId = ((await created.json()) as { id: string }).id;
  });
  afterAll(() => api.close());

  it('sends the OpenAPI document (over 1 KiB) as brotli or gzip, as asked, with the same JSON inside', async () => {
    const plain = await rawGet(api, '/api/v1/openapi.json', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    const document = JSON.parse(plain.body.toString('utf8')) as unknown;
    expect(plain.body.length).toBeGreaterThan(1024);

    const br = await rawGet(api, '/api/v1/openapi.json', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toMatch(/Accept-Encoding/);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(document);

    const gz = await rawGet(api, '/api/v1/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).toEqual(document);
  });

  it('leaves a small answer plain, whatever the caller accepts', async () => {
    const answer = await rawGet(api, `/api/v1/records/${recordId}`, { 'Accept-Encoding': 'br, gzip', Authorization: `Bearer ${org.key.token}` });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['vary']).toMatch(/Accept-Encoding/);
    expect((JSON.parse(answer.body.toString('utf8')) as { id: string }).id).toBe(recordId);
  });

  it('keeps the status of a compressed answer', async () => {
    const list = await rawGet(api, `/api/v1/models/${org.modelKey}/records?limit=100`, { 'Accept-Encoding': 'gzip', Authorization: `Bearer ${org.key.token}` });
    expect(list.status).toBe(200);
    expect(JSON.parse((list.headers['content-encoding'] === 'gzip' ? gunzipSync(list.body) : list.body).toString('utf8'))).toHaveProperty('items');
  });
});
