import { createServer } from 'node:net';
import { freePort } from '@mrp/platform';
import { createTestDatabase, startAppProcess, type TestDatabase } from '@mrp/platform/testing';

describe('the api process', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('stops start-up on a configuration error with one clear line and exit code 1', async () => {
    const app = startAppProcess('api', { ...database.env, AUTH_JWT_SECRET: 'x'.repeat(32), PORT: 'abc' });
    const { code, stderr } = await app.exited;
    expect(code).toBe(1);
    expect(stderr).toBe('api: configuration error: PORT must be an integer from 1 to 65535, got "abc"\n');
  });

  it('says in one line that its PORT is taken, and exits 1', async () => {
    const port = await freePort();
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(port, '127.0.0.1', done));
    try {
      const app = startAppProcess('api', { ...database.env, AUTH_JWT_SECRET: 'x'.repeat(32), PORT: String(port) });
      const { code, stderr } = await app.exited;
      expect(code).toBe(1);
      expect(stderr).toBe(
        `api: configuration error: PORT ${port} is already in use on 127.0.0.1: stop the program listening there, or set PORT to a free port\n`,
      );
    } finally {
      taken.close();
    }
  });

  it('refuses to start without a way to verify sessions', async () => {
    const app = startAppProcess('api', { ...database.env });
    const { code, stderr } = await app.exited;
    expect(code).toBe(1);
    expect(stderr).toBe('api: configuration error: Set AUTH_JWT_SECRET (HS256) or AUTH_JWKS_URL to verify session tokens\n');
  });

  it('serves /health and the API reference page with its files, then stops cleanly on SIGTERM with exit code 0', async () => {
    const app = startAppProcess('api', {
      ...database.env,
      AUTH_JWT_SECRET: 'x'.repeat(32),
      FEATURE_FLAGS: 'public-api.enabled=true',
      PORT: String(20000 + Math.floor(Math.random() * 20000)),
    });
    const line = await app.waitForLine(/api listening/);
    const port = (JSON.parse(line) as { port: number }).port;
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    // The page's files are read from the sources' folder, which the bundle must still find.
    const page = await fetch(`http://127.0.0.1:${port}/api/v1/docs`);
    expect(page.status).toBe(200);
    const files = [...(await page.text()).matchAll(/\/api\/v1\/docs\/([\w.-]+\.(?:js|css))/g)].map((match) => match[1]);
    expect(files).toHaveLength(4);
    const answers = await Promise.all(files.map((file) => fetch(`http://127.0.0.1:${port}/api/v1/docs/${file}`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    app.child.kill('SIGTERM');
    await app.waitForLine(/"msg":"api stopped"/);
    expect((await app.exited).code).toBe(0);
  });

  it('runs API_WORKERS processes on one port, and stops them all on SIGTERM', async () => {
    const app = startAppProcess('api', {
      ...database.env,
      AUTH_JWT_SECRET: 'x'.repeat(32),
      PORT: String(20000 + Math.floor(Math.random() * 20000)),
      API_WORKERS: '2',
    });
    await app.waitForLine(/api running 2 workers/);
    const listening = (await app.waitForLines(/api listening/, 2)).map((text) => JSON.parse(text) as { pid: number; port: number });
    expect(new Set(listening.map((line) => line.pid)).size).toBe(2);
    expect(listening.map((line) => line.pid)).not.toContain(app.child.pid);
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${listening[0].port}/health`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    app.child.kill('SIGTERM');
    expect((await app.exited).code).toBe(0);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(listening.filter((line) => alive(line.pid))).toEqual([]);
  });
});
