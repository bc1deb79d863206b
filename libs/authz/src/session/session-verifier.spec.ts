import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload, type KeyLike } from 'jose';
import { createSessionVerifier } from './session-verifier';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const claims = { sub: '5f0c1d8e-5a7b-4c1e-9d3f-2b6a7c8d9e0f', email: 'Ada@Example.com', name: 'Ada Lovelace' };

async function hs256(payload: JWTPayload, { secret = SECRET, expiresIn = '5m' as string | null } = {}) {
  const jwt = new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (expiresIn) jwt.setExpirationTime(expiresIn);
  return jwt.sign(new TextEncoder().encode(secret));
}

describe('createSessionVerifier (HS256)', () => {
  const verifier = createSessionVerifier({ jwtSecret: SECRET });

  it('accepts a valid token and returns sub, email and name', async () => {
    await expect(verifier.verify(await hs256(claims))).resolves.toEqual(claims);
  });

  it('leaves name out when the token has none', async () => {
    await expect(verifier.verify(await hs256({ sub: claims.sub, email: claims.email }))).resolves.toEqual({
      sub: claims.sub,
      email: claims.email,
    });
  });

  it('refuses a token signed with another secret', async () => {
    const token = await hs256(claims, { secret: 'another-secret-that-is-also-long-enough' });
    await expect(verifier.verify(token)).rejects.toMatchObject({
      code: 'unauthorized',
      message: 'Session token signature is invalid',
    });
  });

  it('refuses an expired token', async () => {
    const token = await hs256({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }, { expiresIn: null });
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: 'unauthorized', message: 'Session token has expired' });
  });

  it('refuses a token without an expiry', async () => {
    await expect(verifier.verify(await hs256(claims, { expiresIn: null }))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('"exp"'),
    });
  });

  it.each([
    ['sub', { email: claims.email }],
    ['email', { sub: claims.sub }],
    ['email', { sub: claims.sub, email: 'not-an-email' }],
    ['sub', { sub: 'svc_0123', email: claims.email }],
    ['sub', { sub: 'auth0|5f0c1d8e5a7b', email: claims.email }],
    ['sub', { sub: `${claims.sub}x`, email: claims.email }],
    ['sub', { sub: 42, email: claims.email } as unknown as JWTPayload],
  ])('refuses a token without a valid %s claim', async (claim, payload) => {
    await expect(verifier.verify(await hs256(payload))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(new RegExp(`^Session token has no valid "${claim}" claim`)),
    });
  });

  it('says that sub must be a UUID, and takes one in any case as its lowercase form', async () => {
    await expect(verifier.verify(await hs256({ sub: 'not-a-uuid', email: claims.email }))).rejects.toMatchObject({
      code: 'unauthorized',
      message: 'Session token has no valid "sub" claim (a UUID)',
    });
    await expect(verifier.verify(await hs256({ ...claims, sub: claims.sub.toUpperCase() }))).resolves.toMatchObject({ sub: claims.sub });
  });

  it.each([
    [false, false],
    ['false', false],
    ['yes', false],
    [true, true],
    ['true', true],
  ])('reads email_verified %j as %s', async (emailVerified, trusted) => {
    await expect(verifier.verify(await hs256({ ...claims, email_verified: emailVerified }))).resolves.toEqual({ ...claims, emailVerified: trusted });
  });

  it('refuses garbage and an empty token', async () => {
    await expect(verifier.verify('not.a.jwt')).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(verifier.verify('')).rejects.toMatchObject({ code: 'unauthorized', message: 'Session token is missing' });
  });

  it('refuses an unsigned (alg none) token', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${encode({ alg: 'none' })}.${encode({ ...claims, exp: Math.floor(Date.now() / 1000) + 60 })}.`;
    await expect(verifier.verify(token)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('needs a secret or a JWKS URL', () => {
    expect(() => createSessionVerifier({})).toThrow('createSessionVerifier needs a jwtSecret or a jwksUrl');
  });
});

describe('createSessionVerifier (JWKS)', () => {
  let server: Server;
  let jwksUrl: string;
  let privateKey: KeyLike;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const rs256 = (payload: JWTPayload) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).setExpirationTime('5m').sign(privateKey);

  it('accepts an RS256 token signed by a key of the provider', async () => {
    const verifier = createSessionVerifier({ jwksUrl });
    await expect(verifier.verify(await rs256(claims))).resolves.toEqual(claims);
  });

  it('refuses an HS256 token when only the JWKS is configured', async () => {
    const verifier = createSessionVerifier({ jwksUrl });
    await expect(verifier.verify(await hs256(claims))).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('with both configured, picks the key by the token algorithm', async () => {
    const verifier = createSessionVerifier({ jwksUrl, jwtSecret: SECRET });
    await expect(verifier.verify(await rs256(claims))).resolves.toEqual(claims);
    await expect(verifier.verify(await hs256(claims))).resolves.toEqual(claims);
  });

  it('with an issuer and an audience configured, refuses a token minted for another client of the same provider', async () => {
    const verifier = createSessionVerifier({ jwksUrl, issuer: 'https://idp.example', audience: 'platform-console' });
    await expect(verifier.verify(await rs256({ ...claims, iss: 'https://idp.example', aud: 'platform-console' }))).resolves.toEqual(claims);
    await expect(verifier.verify(await rs256({ ...claims, iss: 'https://idp.example', aud: 'another-app' }))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('"aud"'),
    });
    await expect(verifier.verify(await rs256({ ...claims, iss: 'https://other.example', aud: 'platform-console' }))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('"iss"'),
    });
    await expect(verifier.verify(await rs256(claims))).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
