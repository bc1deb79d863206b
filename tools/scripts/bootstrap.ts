/**
 * `npm run bootstrap -- --email you@example.com --org "Acme"`: the way into a fresh deployment.
 * Creates the first organization with that person as its owner (through the same procedures
 * as /rpc, so the same events are emitted), optionally turns the public API on, and prints a
 * full-access API key and, with AUTH_JWT_SECRET, a session token: each shown once.
 * It changes nothing once the owner, or a platform admin, is a member of an organization.
 */
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { User, organizationsOfMembers, resolveSessionPrincipal, userIdsByVerifiedEmail, type SessionClaims } from '@mrp/authz';
import {
  ConfigError,
  invokeProcedure,
  isDomainError,
  isUuidString,
  loadConfig,
  newId,
  type PlatformConfig,
  type Principal,
} from '@mrp/platform';
import { EmbeddedPostgresError } from '@mrp/platform/dev';
import { createRuntime, describeStartupFailure, type Runtime } from '@mrp/runtime';
import { withDatabase } from './local-database';

const USAGE =
  'usage: npm run bootstrap -- --email <address> --org <organization name> [--slug <slug>] [--name <display name>] ' +
  '[--user-id <identity provider subject, a UUID>] [--enable-public-api]';
const SESSION_LIFETIME = '24h';

/** Refusals and usage mistakes: said in one line, nothing changed. */
class BootstrapRefusal extends Error {}

interface BootstrapOptions {
  email: string;
  organizationName: string;
  slug?: string;
  displayName?: string;
  userId?: string;
  enablePublicApi: boolean;
}

function parseOptions(argv: string[]): BootstrapOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        email: { type: 'string' },
        org: { type: 'string' },
        slug: { type: 'string' },
        name: { type: 'string' },
        'user-id': { type: 'string' },
        'enable-public-api': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new BootstrapRefusal(`${(error as Error).message.split('\n')[0]}; ${USAGE}`);
  }
  const email = values.email?.trim().toLowerCase();
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new BootstrapRefusal(`--email needs the owner's address; ${USAGE}`);
  const organizationName = values.org?.trim();
  if (!organizationName) throw new BootstrapRefusal(`--org needs the organization's name; ${USAGE}`);
  const userId = values['user-id']?.trim();
  if (userId !== undefined && !isUuidString(userId)) throw new BootstrapRefusal(`--user-id must be a UUID (the identity provider's "sub"), got "${userId}"`);
  return { email, organizationName, slug: values.slug, displayName: values.name?.trim() || undefined, userId, enablePublicApi: values['enable-public-api'] };
}

async function call<T>(runtime: Runtime, principal: Principal, name: string, input: unknown): Promise<T> {
  return invokeProcedure<T>(runtime.procedures.require(name), input, { em: runtime.orm.em.fork(), principal, correlationId: 'bootstrap' }, runtime.invocationDeps);
}

/**
 * The account of the person: the one whose address the identity provider vouched for, else the
 * given or a new id. An unverified claim of the address is nobody's (decision 27): such a row is
 * someone else's account and is never taken over, so the owner gets an account of their own.
 */
async function ownerClaims(runtime: Runtime, options: BootstrapOptions): Promise<SessionClaims> {
  const em = runtime.orm.em.fork();
  const [holderId] = await userIdsByVerifiedEmail(em, [options.email]);
  const holder = holderId ? await em.findOneOrFail(User, { id: holderId }) : null;
  if (holder && options.userId && holder.id !== options.userId) {
    throw new BootstrapRefusal(`${options.email} already belongs to another account (verified by the identity provider), not ${options.userId}: give that person's --user-id, or another --email`);
  }
  if (holder && holder.kind !== 'HUMAN') throw new BootstrapRefusal(`${options.email} belongs to a service account; give a person's address`);
  const sub = holder?.id ?? options.userId;
  if (!sub && !runtime.config.authJwtSecret) {
    throw new BootstrapRefusal(
      'sessions come from your identity provider (AUTH_JWKS_URL): pass --user-id with its subject ("sub") for this person, so the owner created here is the account that signs in',
    );
  }
  const claims: SessionClaims = { sub: sub ?? newId(), email: options.email };
  const name = options.displayName ?? holder?.displayName;
  if (name) claims.name = name;
  return claims;
}

/**
 * Bootstrap sets a deployment up once per owner: it refuses when the owner, or any platform admin
 * (a verified address in PLATFORM_ADMIN_EMAILS), is already a member of an organization. An
 * organization any signed-in person created over /rpc does not count, so nobody can block it.
 */
async function refuseWhenSetUp(runtime: Runtime, options: BootstrapOptions, owner: SessionClaims): Promise<void> {
  const em = runtime.orm.em.fork();
  const [ofOwner] = await organizationsOfMembers(em, [owner.sub]);
  if (ofOwner) {
    throw new BootstrapRefusal(
      `${options.email} is already a member of an organization ("${ofOwner.name}", slug ${ofOwner.slug}), so bootstrap changes nothing: ` +
        'sign in and use /rpc (apiKeys.create, organizations.create, featureFlags.set) instead',
    );
  }
  const admins = await userIdsByVerifiedEmail(em, [...runtime.config.platformAdminEmails]);
  const [ofAdmin] = await organizationsOfMembers(em, admins);
  if (ofAdmin) {
    throw new BootstrapRefusal(
      `this deployment is set up: a platform admin is a member of the organization "${ofAdmin.name}" (slug ${ofAdmin.slug}), so bootstrap changes nothing: ` +
        'sign in and use /rpc (apiKeys.create, organizations.create, featureFlags.set) instead',
    );
  }
}

async function bootstrap(runtime: Runtime, options: BootstrapOptions): Promise<string[]> {
  const config = runtime.config;
  const claims = await ownerClaims(runtime, options);
  await refuseWhenSetUp(runtime, options, claims);
  // Whoever runs bootstrap has the deployment's keys; for these calls the owner acts as a platform admin.
  const platformAdminEmails = new Set([...config.platformAdminEmails, options.email]);
  const asOwner = (organizationId: string | null) =>
    resolveSessionPrincipal(runtime.orm.em.fork(), claims, { organizationId, platformAdminEmails });

  const organization = await call<{ id: string; name: string; slug: string }>(runtime, await asOwner(null), 'organizations.create', {
    name: options.organizationName,
    ...(options.slug ? { slug: options.slug } : {}),
  });
  const owner = await asOwner(organization.id);
  const lines = [`Organization "${organization.name}" created (id ${organization.id}, slug ${organization.slug}); owner ${options.email} (user id ${claims.sub}).`];

  if (options.enablePublicApi) {
    await call(runtime, owner, 'featureFlags.set', { key: 'public-api.enabled', enabled: true });
    lines.push('Public API turned on (feature flag public-api.enabled).');
  } else if (!(await runtime.flags.isEnabled('public-api.enabled'))) {
    lines.push('Public API is off: run with --enable-public-api on an empty deployment, or a platform admin calls featureFlags.set.');
  }

  const key = await call<{ token: string }>(runtime, owner, 'apiKeys.create', { name: 'Bootstrap key', fullAccess: true });
  lines.push(`API key (full access, shown once, keep it): ${key.token}`);

  if (config.authJwtSecret) {
    const session = await new SignJWT({ email: options.email, email_verified: true, ...(claims.name ? { name: claims.name } : {}) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.sub)
      .setIssuedAt()
      .setExpirationTime(SESSION_LIFETIME)
      .sign(new TextEncoder().encode(config.authJwtSecret));
    lines.push(`Session token for /rpc (${SESSION_LIFETIME}, shown once; X-Organization-Id: ${organization.id}): ${session}`);
  } else {
    lines.push('No session token: sessions come from your identity provider (AUTH_JWKS_URL); sign in there as this person.');
  }

  lines.push(
    config.platformAdminEmails.has(options.email)
      ? `${options.email} is a platform admin (listed in PLATFORM_ADMIN_EMAILS).`
      : `${options.email} is not a platform admin: add it to PLATFORM_ADMIN_EMAILS of the api (e.g. in .env) and restart the api; ` +
          'admin status comes from that list and the verified email of the session.',
  );
  return lines;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const config: PlatformConfig = loadConfig();
  const lines = await withDatabase('npm run bootstrap', config, async (databaseUrl) => {
    const runtime = await createRuntime({ ...config, databaseUrl }, { name: 'bootstrap', poolSize: 2 });
    try {
      return await bootstrap(runtime, options);
    } finally {
      await runtime.close();
    }
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

function describe(error: unknown): string {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  if (error instanceof BootstrapRefusal || error instanceof EmbeddedPostgresError) return error.message;
  if (isDomainError(error)) {
    const details = error.details?.map((detail) => `${detail.field}: ${detail.message}`).join('; ');
    return details ? `${error.message} (${details})` : error.message;
  }
  // A database without the schema: the apps and this command never create it.
  if ((error as { code?: string }).code === '42P01') return 'the database has no schema yet: run npm run migrate first';
  return describeStartupFailure(error);
}

main().catch((error: unknown) => {
  process.stderr.write(`bootstrap: ${describe(error)}\n`);
  process.exit(1);
});
