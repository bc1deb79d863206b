import Router from '@koa/router';
import { SignJWT } from 'jose';
import { v5 as uuidv5 } from 'uuid';
import { userIdsByVerifiedEmail } from '@mrp/authz';
import { isUuidString, validationFailed, type PlatformConfig } from '@mrp/platform';
import { readJsonBody } from '../http/json-body';
import { requestState } from '../http/request-context';

/** Ids of people first seen through the development sign-in: the same address gives the same id. */
const DEV_USER_NAMESPACE = '6f1d3c1e-9a43-4c44-9b7e-2f8d6c0a51d2';
const DEV_SESSION_HOURS = 12;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

/**
 * Whether this api offers the development sign-in: never in production, and only where it can
 * sign sessions itself (an HS256 secret; with a JWKS only the identity provider signs).
 */
export function devSignInEnabled(config: PlatformConfig): boolean {
  return config.nodeEnv !== 'production' && Boolean(config.authJwtSecret);
}

/**
 * `/dev/session`, for development only: `GET` says it exists and names the demo user (the first
 * platform admin), `POST { email }` signs anyone in by minting the session the identity provider
 * would issue, signed with AUTH_JWT_SECRET. A person already known by that (vouched-for) address
 * keeps their id; a new address gets an id derived from it.
 */
export function devSessionRouter(config: PlatformConfig): Router {
  const secret = new TextEncoder().encode(config.authJwtSecret);
  const router = new Router({ prefix: '/dev' });

  router.get('/session', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { demoEmail: [...config.platformAdminEmails][0] ?? null };
  });

  router.post('/session', async (ctx) => {
    const body = (await readJsonBody(ctx)) as { email?: unknown } | undefined;
    const email = typeof body?.email === 'string' ? body.email.trim().toLowerCase() : '';
    if (!EMAIL.test(email) || email.length > MAX_EMAIL_LENGTH) {
      throw validationFailed([{ field: 'email', code: 'invalid_format', message: 'must be an email address' }]);
    }
    const [knownId] = (await userIdsByVerifiedEmail(requestState(ctx).em, [email])).filter((id) => isUuidString(id));
    const sub = knownId ?? uuidv5(email, DEV_USER_NAMESPACE);
    const expiresAt = new Date(Date.now() + DEV_SESSION_HOURS * 3600 * 1000);
    let jwt = new SignJWT({ email, email_verified: true, name: email.split('@')[0] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000));
    // The session verifier checks these when configured; a dev session must pass it as any other.
    if (config.authJwtIssuer) jwt = jwt.setIssuer(config.authJwtIssuer);
    if (config.authJwtAudience) jwt = jwt.setAudience(config.authJwtAudience);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { token: await jwt.sign(secret), userId: sub, expiresAt: expiresAt.toISOString() };
  });

  return router;
}
