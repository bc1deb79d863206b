import fc from 'fast-check';
import { SignJWT } from 'jose';
import { FILTER_OPS } from '@mrp/field-validation';
import type { AnyProcedure, ErrorCode } from '@mrp/platform';
import { httpStatusFor } from '../src/http/error-status';
import { PUBLIC_ROUTES, type PublicRoute } from '../src/public-api/route-table';
import { PLATFORM_ADMIN, TEST_JWT_SECRET, sessionToken, startTestApi, type TestApi } from './support/test-api';
import { createOrganizationWithKey, rpcOk, type OrganizationWithKey } from './support/public-api-fixtures';
import {
  NASTY_STRINGS,
  RawJson,
  fromSchema,
  hostileJson,
  hostileString,
  percentEncode,
  recordHints,
  tainted,
  toJsonText,
  type HostileContext,
  type ModelUnderTest,
} from './support/hostile-values';

/**
 * Every /rpc procedure of the registry and every /api/v1 route, fed generated
 * hostile input over real HTTP against the real app and PostgreSQL, answers below 500 and, when it
 * refuses, in the contract's error shape with the status its code maps to.
 *
 * Runs are bounded to keep the file fast. HOSTILE_INPUT_SEED=<n> replays a run (the seed is printed
 * on failure), HOSTILE_INPUT_RUNS=<n> sets the runs per procedure and route.
 */
const SEED = process.env['HOSTILE_INPUT_SEED'] === undefined ? Date.now() % 2 ** 31 : Number(process.env['HOSTILE_INPUT_SEED']);
const RUNS = Number(process.env['HOSTILE_INPUT_RUNS'] ?? 15);
const REQUEST_TIMEOUT_MS = 15_000;

interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const describeRequest = ({ method, path, headers, body }: SentRequest) => {
  const shown = (text: string) => JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}… (${text.length} chars)` : text);
  return `${method} ${shown(path)} headers ${JSON.stringify(headers)}${body === undefined ? '' : ` body ${shown(body)}`}`;
};

/** Fails unless the answer is below 500 and, for an error, `{ error: { code, message, details? } }` with the matching status. */
async function expectContractAnswer(api: TestApi, request: SentRequest): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${api.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(`No answer (${(error as Error).message}) to ${describeRequest(request)}`);
  }
  const text = await response.text();
  const fail = (why: string) => {
    throw new Error(`${why}: ${response.status} ${text.slice(0, 500)}\n  to ${describeRequest(request)}`);
  };
  if (response.status >= 500) fail('Server error');
  if (response.status < 400) return;
  if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) fail('Error without a JSON body');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail('Error body is not JSON');
  }
  const error = (body as { error?: Record<string, unknown> }).error;
  if (!error || typeof error['code'] !== 'string' || typeof error['message'] !== 'string') fail('Error not in the contract shape');
  const extraKeys = Object.keys(error ?? {}).filter((key) => !['code', 'message', 'details', 'requestId'].includes(key));
  if (error?.['requestId'] !== response.headers.get('x-request-id')) fail('The error does not carry the X-Request-Id of its answer');
  if (extraKeys.length > 0) fail(`Unexpected error keys ${extraKeys.join(', ')}`);
  let expectedStatus: number | undefined;
  try {
    expectedStatus = httpStatusFor(error?.['code'] as ErrorCode);
  } catch {
    fail('Unknown error code');
  }
  if (expectedStatus !== response.status) fail(`Status does not match code ${String(error?.['code'])}`);
  if (/\n\s+at |\.ts:\d+|node_modules/.test(text)) fail('Stack trace in the answer');
}

/** Runs a property with the file's seed; a failure says how to replay it. */
async function sweep<T>(name: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, check), { numRuns: RUNS, seed: SEED });
  } catch (error) {
    const failure = error as Error;
    // Counterexamples can hold megabytes of generated text; long lines are cut so the report stays readable.
    const lines = failure.message.split('\n').map((line) => (line.length > 2000 ? `${line.slice(0, 2000)}… (${line.length} chars)` : line));
    failure.message = `${lines.join('\n')}\n\nReplay: HOSTILE_INPUT_SEED=${SEED} npx jest --config apps/api/jest.config.js apps/api/test/hostile-input -t ${JSON.stringify(name)}`;
    throw failure;
  }
}

/** Header values fetch can send (no NUL or line breaks): junk credentials and request ids. */
const headerJunk = (context: HostileContext) =>
  fc.oneof(
    hostileString(context).filter((value) => /^[\t\u0020-\u007e\u0080-\u00ff]*$/.test(value) && value.length < 8000),
    fc.constantFrom('', ' ', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer mrk_', 'Bearer eyJhbGciOiJub25lIn0.e30.', 'bearer  x y'),
  );

describe('hostile input sweep', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let adminSession: string;
  const context: { known: string[]; hints: Record<string, fc.Arbitrary<unknown>> } = { known: [], hints: {} };
  let worldCounter = 0;
  let cursor = '';
  let recordIds: readonly string[] = [];

  /** A model with a field of every type and a record in it; its keys and ids join the known values. */
  async function buildModel(): Promise<void> {
    worldCounter += 1;
    const key = `things_${worldCounter}`;
    await org.rpc('dataModels.create', { key, name: `Things ${worldCounter}` });
    const fields = [
      { key: 'won', type: 'BOOLEAN' },
      { key: 'note', type: 'TEXT', indexed: true },
      { key: 'body', type: 'RICH_TEXT' },
      { key: 'amount', type: 'NUMBER', config: { precision: 2 }, indexed: true },
      { key: 'day', type: 'DATE' },
      { key: 'at', type: 'DATETIME' },
      { key: 'stage', type: 'SELECT', config: { options: [{ value: 'new' }, { value: 'won' }] } },
      { key: 'tags', type: 'MULTI_SELECT', config: { options: [{ value: 'a' }, { value: 'b' }] } },
      { key: 'links', type: 'RELATION', config: { targetModel: key, multiple: true } },
      { key: 'site', type: 'URL' },
      { key: 'mail', type: 'EMAIL' },
      { key: 'doc', type: 'FILE' },
      { key: 'files', type: 'ATTACHMENTS' },
      { key: 'double', type: 'FORMULA', config: { expression: '{amount} * 2', resultType: 'NUMBER' } },
    ];
    for (const field of fields) await org.rpc('dataModels.fields.create', { model: key, name: field.key, ...field });
    const first = await org.rpc<{ id: string }>('records.create', { model: key, data: { title: 'First', amount: 1, tags: ['a'] } });
    const second = await org.rpc<{ id: string }>('records.create', { model: key, data: { title: 'Second', links: [first.id], stage: 'won' } });
    const page = await org.rpc<{ nextCursor: string }>('records.list', { model: key, limit: 1, sort: '-amount,title' });
    cursor = page.nextCursor;
    context.known.push(key, first.id, second.id, cursor, ...fields.map((field) => field.key));
    const file = { url: 'https://files.example.com/a.pdf', name: 'a.pdf', mimeType: 'application/pdf', size: 10 };
    const model: ModelUnderTest = {
      key,
      recordIds: [first.id, second.id],
      values: {
        won: fc.boolean(),
        note: fc.string({ maxLength: 30 }),
        body: fc.constantFrom('<p>Hi <strong>there</strong></p>', '<a href="https://example.com">x</a>'),
        amount: fc.integer({ min: -1e6, max: 1e6 }).map((cents) => cents / 100),
        day: fc.constantFrom('2024-02-29', '0001-01-01', '9999-12-31'),
        at: fc.constantFrom('2024-01-01T10:00:00+02:00', '9999-12-31T23:59:59.999Z'),
        stage: fc.constantFrom('new', 'won'),
        tags: fc.subarray(['a', 'b']),
        links: fc.subarray([first.id, second.id]),
        site: fc.constantFrom('https://example.com/x?y=1'),
        mail: fc.emailAddress(),
        doc: fc.constant(file),
        files: fc.array(fc.constant(file), { maxLength: 2 }),
      },
    };
    recordIds = model.recordIds;
    context.hints = { ...recordHints(context, model, FILTER_OPS), cursor: fc.constant(cursor) };
  }

  /** The public API and the service-account surface on, so their doors and procedures are swept. */
  async function enableFlags(): Promise<void> {
    for (const key of ['public-api.enabled', 'public-api.service-accounts']) {
      await rpcOk(api, 'featureFlags.set', { key, enabled: true }, { token: adminSession });
    }
  }

  /** Puts back what a run may have taken away: the flags, a live model and records to aim at. */
  async function repairWorld(): Promise<void> {
    await enableFlags();
    const asOwner = { token: org.owner.session, organizationId: org.organizationId };
    const model = await api.rpc('dataModels.get', { key: `things_${worldCounter}` }, asOwner);
    const records = await Promise.all(recordIds.map((id) => api.rpc('records.get', { id }, asOwner)));
    if (model.status !== 200 || records.some((record) => record.status !== 200)) await buildModel();
  }

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000000', PUBLIC_API_RATE_PER_SECOND: '1000000' });
    adminSession = await sessionToken(PLATFORM_ADMIN);
    org = await createOrganizationWithKey(api);
    await enableFlags();
    await buildModel();
    const role = await org.rpc<{ id: string; key: string }>('rbac.roles.create', { key: 'auditor', name: 'Auditor', permissions: ['records.read'] });
    const member = await org.addMember(['member']);
    const memberId = (await api.rpc<{ user: { id: string } }>('me.get', {}, { token: member.session })).body.user?.id;
    const spareKey = await org.createKey({ name: 'Spare', fullAccess: false, permissions: ['records.read'] });
    const serviceAccount = await org.rpc<{ id: string }>('serviceAccounts.create', { displayName: 'Robot' });
    const { token: inviteToken } = await org.rpc<{ token: string }>('organizations.invite', { email: 'invitee@example.com' });
    context.known.push(
      org.organizationId,
      role.id,
      role.key,
      'member',
      'owner',
      'read-only',
      ...(memberId ? [memberId] : []),
      spareKey.id,
      serviceAccount.id,
      inviteToken,
      'records.read',
      'public-api.enabled',
      'tasks',
      'status',
    );
  }, 120_000);
  afterAll(() => api.close());

  describe('every /api/v1 route', () => {
    const routeCase = (route: PublicRoute) => [`${route.method.toUpperCase()} ${route.path}`, route] as const;

    it.each(PUBLIC_ROUTES.map(routeCase))('%s', async (name, route) => {
      const pathParamNames = [...route.path.matchAll(/:([a-z]+)/gi)].map((match) => match[1]);
      const declaredQuery = Object.keys(route.query ?? {});
      const hinted = (name: string) => (Object.hasOwn(context.hints, name) ? context.hints[name] : hostileString(context));
      const asParameter = (value: unknown) => percentEncode(typeof value === 'string' ? value : toJsonText(value));
      const pathValue = (param: string) =>
        fc.oneof(
          { weight: 4, arbitrary: hinted(param).map(asParameter) },
          { weight: 2, arbitrary: hostileString(context).filter((value) => value.length < 10_000).map(percentEncode) },
          { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%ED%A0%80', '%00', '..', '%2F', '%252F', '') },
        );
      const hostileQueryValue = fc.oneof(
        { weight: 3, arbitrary: fc.oneof(hostileString(context), hostileJson(context).map(toJsonText)).filter((value) => value.length < 100_000).map(percentEncode) },
        { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '', '1e1', '-0', 'true', 'false', '100', '1', percentEncode(cursor)) },
      );
      type Pair = readonly [string, string];
      const declaredPair: fc.Arbitrary<Pair> = declaredQuery.length > 0
        ? fc.constantFrom(...declaredQuery).chain((name) =>
            fc.oneof({ weight: 3, arbitrary: (name === 'hard' ? fc.constantFrom('true', 'false') : hinted(name).map(asParameter)) }, { weight: 1, arbitrary: hostileQueryValue }).map((value) => [name, value] as const),
          )
        : fc.tuple(fc.constant('limit'), hostileQueryValue);
      const junkPair: fc.Arbitrary<Pair> = fc.tuple(fc.constantFrom('__proto__', 'constructor', '', '%', 'filter[field]', 'limit[]', percentEncode('a\u0000'), 'limit'), hostileQueryValue);
      const query: fc.Arbitrary<readonly Pair[]> =
        declaredQuery.length > 0
          ? fc.oneof(
              { weight: 4, arbitrary: fc.uniqueArray(declaredPair, { maxLength: 4, selector: ([name]) => name }) },
              { weight: 1, arbitrary: fc.array(fc.oneof(declaredPair, junkPair), { maxLength: 4 }) },
            )
          : fc.oneof({ weight: 5, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(junkPair, { maxLength: 2 }) });
      const body = route.body
        ? fc.oneof(
            { weight: 5, arbitrary: fromSchema(route.body, context).map(toJsonText) },
            { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"data":', '\u0000', '{"data":{}}garbage') },
          )
        : fc.constant(undefined);
      const request = fc.record({
        params: fc.tuple(...pathParamNames.map(pathValue)),
        query,
        body,
        contentType: fc.oneof(
          { weight: 6, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'multipart/form-data', '') },
        ),
        authorization: fc.oneof({ weight: 8, arbitrary: fc.constant(`Bearer ${org.key.token}`) }, { weight: 1, arbitrary: headerJunk(context) }),
        requestId: fc.option(headerJunk(context), { nil: undefined }),
        method: fc.oneof({ weight: 12, arbitrary: fc.constant(route.method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') }),
      });
      await sweep(name, request, async ({ params, query, body: text, contentType, authorization, requestId, method }) => {
        let path = `/api/v1${route.path}`;
        pathParamNames.forEach((param, index) => {
          path = path.replace(`:${param}`, params[index] ?? '');
        });
        if (query.length > 0) path += `?${query.map(([key, value]) => `${key}=${value}`).join('&')}`;
        const headers: Record<string, string> = { Authorization: authorization };
        if (requestId !== undefined) headers['X-Request-Id'] = requestId;
        const sendsBody = text !== undefined && method !== 'GET' && method !== 'DELETE';
        if (sendsBody && contentType) headers['Content-Type'] = contentType;
        await expectContractAnswer(api, { method, path, headers, body: sendsBody ? text : undefined });
      });
    });
  });

  describe('every /rpc procedure in the registry', () => {
    const procedures = (): AnyProcedure[] => api.runtime.procedures.all();

    it('covers the whole registry', () => {
      // Enumerated from the runtime, so a new procedure is swept without anyone adding it here.
      expect(procedures().length).toBeGreaterThan(40);
    });

    it('answers unknown and hostile procedure names as not found', async () => {
      await sweep('procedure names', fc.oneof(hostileString(context), fc.constantFrom(...NASTY_STRINGS)).filter((name) => name.length < 10_000), async (name) => {
        const headers = { Authorization: `Bearer ${org.owner.session}`, 'Content-Type': 'application/json' };
        await expectContractAnswer(api, { method: 'POST', path: `/rpc/${percentEncode(name)}`, headers, body: '{}' });
      });
    });

    it('answers session tokens with hostile claims', async () => {
      const claim = fc.oneof(
        { weight: 3, arbitrary: hostileString(context).filter((value) => value.length < 10_000) },
        { weight: 2, arbitrary: fc.emailAddress() },
        { weight: 2, arbitrary: tainted(fc.emailAddress()) },
        { weight: 1, arbitrary: hostileJson(context).filter((value) => !(value instanceof RawJson)) },
      );
      const claims = fc.record(
        { sub: fc.oneof(fc.uuid(), claim), email: claim, name: claim, email_verified: fc.oneof(fc.boolean(), claim) },
        { requiredKeys: [] },
      );
      await sweep('session claims', claims, async ({ sub, ...rest }) => {
        let token = new SignJWT(rest as Record<string, unknown>).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h');
        if (typeof sub === 'string') token = token.setSubject(sub);
        const signed = await token.sign(new TextEncoder().encode(TEST_JWT_SECRET));
        await expectContractAnswer(api, { method: 'POST', path: '/rpc/me.get', headers: { Authorization: `Bearer ${signed}`, 'Content-Type': 'application/json' }, body: '{}' });
      });
    });

    // A callback, not it.each: the registry exists only once the api has started.
    it('answers every procedure below 500 and in the contract shape', async () => {
      const failures: string[] = [];
      for (const procedure of procedures()) {
        const token = procedure.scope === 'platform-admin' ? adminSession : org.owner.session;
        // Only organization procedures need the header; a platform admin is no member of it (404).
        const organizationHeader = fc.oneof(
          { weight: 8, arbitrary: fc.constant(procedure.scope === 'organization' ? org.organizationId : undefined) },
          { weight: 1, arbitrary: fc.oneof(fc.uuid(), headerJunk(context), fc.constant(org.organizationId)) },
        );
        const input = fc.oneof(
          { weight: 8, arbitrary: fromSchema(procedure.input, context).map(toJsonText) },
          { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '1e400', '{"__proto__":{"isPlatformAdmin":true}}', '\u0000') },
        );
        const authorization = fc.oneof({ weight: 10, arbitrary: fc.constant(`Bearer ${token}`) }, { weight: 1, arbitrary: headerJunk(context) });
        try {
          await sweep(procedure.name, fc.tuple(input, organizationHeader, authorization), async ([body, organizationId, auth]) => {
            const headers: Record<string, string> = { Authorization: auth, 'Content-Type': 'application/json' };
            if (organizationId) headers['X-Organization-Id'] = organizationId;
            await expectContractAnswer(api, { method: 'POST', path: `/rpc/${procedure.name}`, headers, body });
          });
        } catch (error) {
          // Every procedure is swept even when one fails; all failures are reported together.
          failures.push(`${procedure.name}: ${(error as Error).message}`);
        }
        await repairWorld();
      }
      if (failures.length > 0) throw new Error(failures.join('\n\n'));
    }, 600_000);
  });
});
