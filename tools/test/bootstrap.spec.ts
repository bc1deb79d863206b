import { SignJWT } from 'jose';
import { freePort } from '@mrp/platform';
import { createTestDatabase, startAppProcess, startScriptProcess, type AppProcess, type TestDatabase } from '@mrp/platform/testing';

/**
 * `npm run bootstrap` on a fresh, migrated database, run as the operator runs it (a child
 * process), then its printed key and session used against a real api process over HTTP.
 */

const BOOTSTRAP = 'tools/scripts/bootstrap.ts';
const JWT_SECRET = 'bootstrap-test-secret-long-enough-for-hs256';
const OPERATOR = 'ops@acme.example';
const PRODUCTION_CURSOR_SECRET = 'bootstrap-test-cursor-secret-32-characters';

function bootstrap(database: TestDatabase, args: string[], env: Record<string, string> = {}): AppProcess {
  return startScriptProcess(BOOTSTRAP, { ...database.env, NODE_ENV: 'production', CURSOR_SECRET: PRODUCTION_CURSOR_SECRET, AUTH_JWT_SECRET: JWT_SECRET, ...env }, { args });
}

function startApi(database: TestDatabase, port: number): AppProcess {
  return startAppProcess('api', {
    ...database.env,
    NODE_ENV: 'production',
    CURSOR_SECRET: PRODUCTION_CURSOR_SECRET,
    HOST: '127.0.0.1',
    PORT: String(port),
    AUTH_JWT_SECRET: JWT_SECRET,
    PLATFORM_ADMIN_EMAILS: OPERATOR,
  });
}

async function stopApi(api: AppProcess | undefined): Promise<void> {
  if (api && api.child.exitCode === null) {
    api.child.kill('SIGTERM');
    await api.exited;
  }
}

function sessionFor(claims: { sub: string; email: string; email_verified?: boolean }): Promise<string> {
  const { sub, ...rest } = claims;
  return new SignJWT(rest).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(JWT_SECRET));
}

function printed(output: string, label: RegExp): string {
  const value = new RegExp(`${label.source}.*?: (\\S+)$`, 'm').exec(output)?.[1];
  if (!value) throw new Error(`no ${label} in: ${output}`);
  return value;
}

describe('npm run bootstrap', () => {
  describe('on an empty deployment', () => {
    let database: TestDatabase;
    let api: AppProcess;
    let baseUrl: string;
    let output: string;
    beforeAll(async () => {
      database = await createTestDatabase();
      const run = bootstrap(database, ['--email', 'Ops@Acme.example', '--org', 'Acme Corp', '--name', 'Olga Ops', '--enable-public-api'], {
        PLATFORM_ADMIN_EMAILS: OPERATOR,
      });
      const { code, stderr } = await run.exited;
      output = run.output().stdout;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

      const port = await freePort();
      // No FEATURE_FLAGS: the public API answers only because bootstrap stored the flag.
      api = startApi(database, port);
      await api.waitForLine(/api listening/, 60_000);
      baseUrl = `http://127.0.0.1:${port}`;
    }, 120_000);
    afterAll(async () => {
      await stopApi(api);
      await database?.drop();
    });

    it('prints a full-access key that works on /api/v1/me for the new organization', async () => {
      const response = await fetch(`${baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${printed(output, /API key/)}` } });
      expect(response.status).toBe(200);
      const me = (await response.json()) as {
        principal: { email: string; displayName: string; kind: string };
        organization: { name: string; slug: string };
        apiKey: { fullAccess: boolean };
        permissions: string[];
      };
      expect(me.principal).toMatchObject({ email: OPERATOR, displayName: 'Olga Ops', kind: 'HUMAN' });
      expect(me.organization).toMatchObject({ name: 'Acme Corp', slug: 'acme-corp' });
      expect(me.apiKey.fullAccess).toBe(true);
      expect(me.permissions).toContain('organization.manage');
    });

    it('prints a session (UUID subject, verified email) with which the owner acts as platform admin over /rpc', async () => {
      const session = printed(output, /Session token/);
      const claims = JSON.parse(Buffer.from(session.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
      expect(claims).toMatchObject({ email: OPERATOR, email_verified: true, name: 'Olga Ops' });
      expect(claims.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const flags = await fetch(`${baseUrl}/rpc/featureFlags.list`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(flags.status).toBe(200);
      const { items } = (await flags.json()) as { items: Array<{ key: string; enabled: boolean; source: string }> };
      expect(items.find((flag) => flag.key === 'public-api.enabled')).toMatchObject({ enabled: true, source: 'stored' });
      expect(output).toContain(`${OPERATOR} is a platform admin (listed in PLATFORM_ADMIN_EMAILS).`);
    });

    it('run again for another person, refuses in one line and creates nothing', async () => {
      const again = bootstrap(database, ['--email', 'someone@else.example', '--org', 'Second'], { PLATFORM_ADMIN_EMAILS: OPERATOR });
      const { code, stderr } = await again.exited;
      expect(code).toBe(1);
      expect(stderr).toBe(
        'bootstrap: this deployment is set up: a platform admin is a member of the organization "Acme Corp" (slug acme-corp), so bootstrap changes nothing: ' +
          'sign in and use /rpc (apiKeys.create, organizations.create, featureFlags.set) instead\n',
      );
      expect(again.output().stdout).toBe('');
      const session = printed(output, /Session token/);
      const me = await fetch(`${baseUrl}/rpc/me.get`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const { organizations } = (await me.json()) as { organizations: unknown[] };
      expect(organizations).toHaveLength(1);
    });
  });

  describe('after strangers signed in first', () => {
    const OWNER = 'owner@corp.example';
    const attacker = { sub: 'a77ac4e2-0000-4000-8000-00000000a77a', email: OWNER, email_verified: false };
    let database: TestDatabase;
    let api: AppProcess;
    let baseUrl: string;
    const rpc = async (session: string, name: string, input: unknown = {}, organizationId?: string) => {
      const response = await fetch(`${baseUrl}/rpc/${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', ...(organizationId ? { 'x-organization-id': organizationId } : {}) },
        body: JSON.stringify(input),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    beforeAll(async () => {
      database = await createTestDatabase();
      const port = await freePort();
      api = startApi(database, port);
      await api.waitForLine(/api listening/, 60_000);
      baseUrl = `http://127.0.0.1:${port}`;
    }, 120_000);
    afterAll(async () => {
      await stopApi(api);
      await database?.drop();
    });

    it('is not stopped by an organization a signed-in stranger created over /rpc', async () => {
      const stranger = await sessionFor({ sub: 'd0d0d0d0-0000-4000-8000-0000000000d0', email: 'stranger@elsewhere.example' });
      expect(await rpc(stranger, 'organizations.create', { name: 'Elsewhere' })).toMatchObject({ status: 200 });
      const run = bootstrap(database, ['--email', 'first@corp.example', '--org', 'First']);
      const { code, stderr } = await run.exited;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.output().stdout).toContain('Organization "First" created');
    });

    it("gives the owner an account of their own, never the one that claimed the owner's address unverified", async () => {
      // Someone signs in once claiming the owner's address, unverified.
      const attackerSession = await sessionFor(attacker);
      expect(await rpc(attackerSession, 'me.get')).toMatchObject({ status: 200 });

      const run = bootstrap(database, ['--email', OWNER, '--org', 'Corp', '--enable-public-api']);
      const { code, stderr } = await run.exited;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const stdout = run.output().stdout;
      expect(stdout).not.toContain(attacker.sub);

      const ownerSession = printed(stdout, /Session token/);
      const ownerClaims = JSON.parse(Buffer.from(ownerSession.split('.')[1], 'base64url').toString()) as { sub: string };
      expect(ownerClaims.sub).not.toBe(attacker.sub);
      const ownerMe = await rpc(ownerSession, 'me.get');
      expect(ownerMe.status).toBe(200);
      expect(ownerMe.body).toMatchObject({ user: { id: ownerClaims.sub, email: OWNER } });
      expect((ownerMe.body.organizations as Array<{ name: string; roleKeys: string[] }>).map(({ name, roleKeys }) => ({ name, roleKeys }))).toEqual([
        { name: 'Corp', roleKeys: ['owner'] },
      ]);

      const attackerMe = await rpc(attackerSession, 'me.get');
      expect(attackerMe.body.organizations).toEqual([]);
      const key = await fetch(`${baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${printed(stdout, /API key/)}` } });
      expect(key.status).toBe(200);
      expect(((await key.json()) as { principal: { id: string } }).principal.id).toBe(ownerClaims.sub);
      // The owner's own identity provider account, with its verified address, signs in as the owner.
      const ownerAtIdp = await sessionFor({ sub: ownerClaims.sub, email: OWNER, email_verified: true });
      expect(await rpc(ownerAtIdp, 'me.get')).toMatchObject({ status: 200, body: { user: { id: ownerClaims.sub } } });
    });

    it('with --user-id, creates the owner under that id and never names the unverified account', async () => {
      const squatter = { sub: 'b77ac4e2-0000-4000-8000-00000000b77b', email: 'boss@corp2.example', email_verified: false };
      expect(await rpc(await sessionFor(squatter), 'me.get')).toMatchObject({ status: 200 });
      const ownerId = 'c0c0c0c0-0000-4000-8000-0000000000c0';
      const run = bootstrap(database, ['--email', squatter.email, '--org', 'Corp Two', '--user-id', ownerId]);
      const { code, stderr } = await run.exited;
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.output().stdout).toContain(`owner ${squatter.email} (user id ${ownerId})`);
      expect(run.output().stdout).not.toContain(squatter.sub);
      const squatterMe = await rpc(await sessionFor(squatter), 'me.get');
      expect(squatterMe.body.organizations).toEqual([]);
    });

    it('run again for the same owner, refuses in one line and creates nothing', async () => {
      const again = bootstrap(database, ['--email', OWNER, '--org', 'Corp again']);
      const { code, stderr } = await again.exited;
      expect(code).toBe(1);
      expect(stderr).toBe(
        `bootstrap: ${OWNER} is already a member of an organization ("Corp", slug corp), so bootstrap changes nothing: ` +
          'sign in and use /rpc (apiKeys.create, organizations.create, featureFlags.set) instead\n',
      );
      expect(again.output().stdout).toBe('');
    });
  });

  describe('what it tells the operator', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(() => database?.drop());

    it('says the operator must list the owner in PLATFORM_ADMIN_EMAILS when it is not', async () => {
      const run = bootstrap(database, ['--email', 'owner@acme.example', '--org', 'Acme']);
      expect((await run.exited).code).toBe(0);
      expect(run.output().stdout).toContain(
        'owner@acme.example is not a platform admin: add it to PLATFORM_ADMIN_EMAILS of the api (e.g. in .env) and restart the api',
      );
      expect(run.output().stdout).toContain('Public API is off');
    });

    it.each([
      [['--org', 'Acme'], /^bootstrap: --email needs the owner's address; usage: npm run bootstrap -- --email/],
      [['--email', 'a@b.example', '--org', 'Acme', '--user-id', 'not-a-uuid'], /^bootstrap: --user-id must be a UUID/],
    ])('%j', async (args, line) => {
      const { code, stderr } = await bootstrap(database, args).exited;
      expect(code).toBe(1);
      expect(stderr).toMatch(line);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    });

    it('asks for the identity provider subject when sessions come from AUTH_JWKS_URL', async () => {
      const run = startScriptProcess(
        BOOTSTRAP,
        { ...(await createTestDatabase()).env, NODE_ENV: 'production', CURSOR_SECRET: PRODUCTION_CURSOR_SECRET, AUTH_JWKS_URL: 'https://idp.example/jwks' },
        { args: ['--email', 'a@b.example', '--org', 'Acme'] },
      );
      const { code, stderr } = await run.exited;
      expect(code).toBe(1);
      expect(stderr).toMatch(/^bootstrap: sessions come from your identity provider \(AUTH_JWKS_URL\): pass --user-id/);
    });
  });
});
