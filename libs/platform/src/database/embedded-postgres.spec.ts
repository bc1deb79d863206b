import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../net/free-port';
import { EmbeddedPostgresError, locatePostgresDistribution, startEmbeddedPostgres, stopWithParentScript, type EmbeddedDatabase } from './embedded-postgres';
import { canReach } from './postgres-user-placement';
import { processAlive } from '../processes/process-alive';

const IS_ROOT = process.getuid?.() === 0;
const WORKSPACE_ROOT = resolve(__dirname, '..', '..', '..', '..');

function uidOfProcess(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}


async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return true;
}

describe('canReach: whether the postgres user can enter a folder', () => {
  const user = { uid: 101, gid: 104 };
  const folders: Record<string, { mode: number; uid: number; gid: number }> = {
    '/': { mode: 0o755, uid: 0, gid: 0 },
    '/tmp': { mode: 0o1777, uid: 0, gid: 0 },
    '/tmp/private': { mode: 0o700, uid: 0, gid: 0 },
    '/tmp/private/repo': { mode: 0o755, uid: 0, gid: 0 },
    '/tmp/shared': { mode: 0o710, uid: 0, gid: 104 },
    '/tmp/theirs': { mode: 0o700, uid: 101, gid: 104 },
  };
  const statOf = (path: string) => {
    const stat = folders[path];
    if (!stat) throw Object.assign(new Error(`ENOENT ${path}`), { code: 'ENOENT' });
    return stat;
  };

  it('needs search permission on every folder down from the root', () => {
    expect(canReach('/tmp', user, statOf)).toBe(true);
    expect(canReach('/tmp/private/repo', user, statOf)).toBe(false);
  });

  it('counts the group and the owner bits for the user they name', () => {
    expect(canReach('/tmp/shared', user, statOf)).toBe(true);
    expect(canReach('/tmp/theirs', user, statOf)).toBe(true);
    expect(canReach('/tmp/shared', { uid: 5, gid: 5 }, statOf)).toBe(false);
  });

  it('judges a path that does not exist yet by its nearest existing folder', () => {
    expect(canReach('/tmp/new/deeper', user, statOf)).toBe(true);
    expect(canReach('/tmp/private/new', user, statOf)).toBe(false);
  });
});

describe('locatePostgresDistribution', () => {
  it('finds the folder the binaries package exports its postgres and initdb from', () => {
    // The package is an ES module; ask a plain Node process what it exports.
    const exported = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createRequire } from 'node:module';
           const require = createRequire(process.cwd() + '/');
           const entry = createRequire(require.resolve('embedded-postgres')).resolve(process.argv[1]);
           const { postgres, initdb } = await import(entry);
           console.log(JSON.stringify({ postgres, initdb }));`,
          `@embedded-postgres/${process.platform}-${process.arch}`,
        ],
        { cwd: WORKSPACE_ROOT, encoding: 'utf8' },
      ),
    ) as { postgres: string; initdb: string };
    const dir = locatePostgresDistribution();
    expect(exported).toEqual({ postgres: join(dir, 'bin', 'postgres'), initdb: join(dir, 'bin', 'initdb') });
  });
});

describe('startEmbeddedPostgres from a data folder inside a private (mode 700) folder', () => {
  let privateDir: string;
  let database: EmbeddedDatabase;
  const plantedSecret = `planted-${process.pid}-secret`;
  beforeAll(async () => {
    privateDir = mkdtempSync(join(tmpdir(), 'mrp-private-'));
    // A secret of the operator's, which the postgres user must not find in its processes' environment.
    process.env.MRP_PLANTED_SECRET = plantedSecret;
    try {
      database = await startEmbeddedPostgres({ dataDir: join(privateDir, 'postgres'), port: await freePort(), database: 'app', persistent: false });
    } finally {
      delete process.env.MRP_PLANTED_SECRET;
    }
  }, 90_000);
  afterAll(async () => {
    await database?.stop();
    rmSync(privateDir, { recursive: true, force: true });
  }, 60_000);

  it('hands the server none of the environment of its starter', () => {
    const environment = readFileSync(`/proc/${database.pid}/environ`, 'utf8').split('\0');
    expect(environment.filter((entry) => entry.includes(plantedSecret) || entry.startsWith('MRP_PLANTED_SECRET='))).toEqual([]);
    expect(environment).toContain('LC_MESSAGES=C');
  });

  it('serves queries, as an unprivileged user when started by root', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      expect((await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db).toBe('app');
    } finally {
      await client.end();
    }
    const expectedUid = IS_ROOT ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })) : process.getuid?.();
    expect(uidOfProcess(database.pid)).toBe(expectedUid);
  });

  it('keeps its data private to the server and its password out of sight', () => {
    expect(statSync(database.dataDir).mode & 0o077).toBe(0);
    expect(new URL(database.url).password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const leftovers = [privateDir, join(database.dataDir, '..'), tmpdir()].flatMap((dir) =>
      readdirSync(dir).filter((name) => name.startsWith('.initdb-') || name.startsWith('pg-password-')),
    );
    expect(leftovers).toEqual([]);
  });

  it('refuses a second server on the same data folder in one line naming the running one', async () => {
    await expect(startEmbeddedPostgres({ dataDir: join(privateDir, 'postgres'), port: await freePort() })).rejects.toThrow(
      new EmbeddedPostgresError(
        `another PostgreSQL (pid ${database.pid}) is running on the data folder ${database.dataDir}: stop it first (kill ${database.pid})`,
      ),
    );
    expect(processAlive(database.pid)).toBe(true);
  });
});

describe('startEmbeddedPostgres failures and clean-up', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'mrp-embedded-'));
    // Open to the postgres user, so nothing is placed elsewhere and a killed server's data stays here.
    chmodSync(scratch, 0o755);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('names EMBEDDED_POSTGRES_PORT when its port is taken', async () => {
    const port = await freePort();
    const blocker: Server = createServer();
    await new Promise<void>((done) => blocker.listen(port, '127.0.0.1', done));
    try {
      await expect(startEmbeddedPostgres({ dataDir: join(scratch, 'taken'), port, persistent: false })).rejects.toThrow(
        `port ${port} of the embedded PostgreSQL is taken by another program: stop it, or set EMBEDDED_POSTGRES_PORT to a free port`,
      );
    } finally {
      blocker.close();
    }
  }, 90_000);

  it('stops the server when the process that started it is killed', async () => {
    const starter = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `require('./libs/platform/src/database/embedded-postgres.ts')
          .startEmbeddedPostgres({ dataDir: process.argv[1], port: Number(process.argv[2]), persistent: false })
          .then((db) => console.log('server pid ' + db.pid))`,
        join(scratch, 'orphan'),
        String(await freePort()),
      ],
      { cwd: WORKSPACE_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    starter.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await waitUntil(() => /server pid \d+/.test(output), 60_000)).toBe(true);
    const serverPid = Number(/server pid (\d+)/.exec(output)?.[1]);
    expect(processAlive(serverPid)).toBe(true);
    starter.kill('SIGKILL');
    expect(await waitUntil(() => !processAlive(serverPid), 15_000)).toBe(true);
  }, 90_000);
});

describe('stopWithParentScript: the shell the server runs under', () => {
  /** A stand-in server that prints the signals it gets, and ends on SIGQUIT, or on SIGINT when told to. */
  const STAND_IN = `
    process.on('SIGINT', () => { console.log('INT'); if (process.argv[1] === 'honours') process.exit(0); });
    process.on('SIGQUIT', () => { console.log('QUIT'); process.exit(0); });
    console.log('up');
    setInterval(() => {}, 1000);`;

  async function runUntilInputCloses(behaviour: 'honours' | 'ignores'): Promise<{ output: string; seconds: number }> {
    const shell = spawn('/bin/sh', ['-c', stopWithParentScript(1), 'stand-in', process.execPath, '-e', STAND_IN, behaviour], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await waitUntil(() => output.includes('up'), 10_000)).toBe(true);
    const closedAt = Date.now();
    shell.stdin.end();
    const exited = await new Promise<boolean>((done) => {
      const timer = setTimeout(() => done(false), 10_000);
      shell.once('exit', () => (clearTimeout(timer), done(true)));
    });
    expect(exited).toBe(true);
    return { output: output.trim(), seconds: (Date.now() - closedAt) / 1000 };
  }

  it('asks for a fast shutdown when its input closes, and nothing more when the server obeys', async () => {
    const { output } = await runUntilInputCloses('honours');
    expect(output.split('\n')).toEqual(['up', 'INT']);
  }, 20_000);

  it('turns a fast shutdown the server has not finished in time into an immediate one', async () => {
    const { output, seconds } = await runUntilInputCloses('ignores');
    expect(output.split('\n')).toEqual(['up', 'INT', 'QUIT']);
    expect(seconds).toBeGreaterThanOrEqual(1);
  }, 20_000);
});

describe('startEmbeddedPostgres refuses files and folders another user could swap', () => {
  let scratch: string;
  // A file only root (or this user) may read, standing for /etc/shadow.
  let target: string;
  const targetText = 'not a password: a file of the operator\'s\n';
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'mrp-links-'));
    chmodSync(scratch, 0o755);
    target = join(scratch, 'operator-only');
    writeFileSync(target, targetText, { mode: 0o600 });
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('refuses a data folder that is a symbolic link, in one line, and leaves its target alone', async () => {
    const elsewhere = join(scratch, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o755 });
    const linked = join(scratch, 'linked');
    symlinkSync(elsewhere, linked);
    await expect(startEmbeddedPostgres({ dataDir: linked, port: await freePort(), persistent: false })).rejects.toThrow(
      new EmbeddedPostgresError(`the embedded PostgreSQL did not start: ${linked} is a symbolic link: make it a real folder (or point LOCAL_DATA_DIR at one)`),
    );
    expect(lstatSync(elsewhere)).toMatchObject({ uid: process.getuid?.(), mode: lstatSync(elsewhere).mode });
    expect(statSync(elsewhere).mode & 0o777).toBe(0o755);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('keeps the password out of the data folder, ignores a link planted there, and refuses a linked password file', async () => {
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir: join(scratch, 'data'), port, database: 'postgres' });
    const { dataDir } = first;
    await first.stop();
    const passwordFile = `${dataDir}.password`;
    expect(statSync(passwordFile)).toMatchObject({ uid: process.getuid?.() });
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    try {
      // Whoever owns the data folder (the postgres user, as root) may plant a link inside it.
      const planted = join(dataDir, 'embedded-password');
      symlinkSync(target, planted);
      const second = await startEmbeddedPostgres({ dataDir: join(scratch, 'data'), port, database: 'postgres' });
      await second.stop();
      expect(decodeURIComponent(new URL(second.url).password)).not.toBe(targetText.trim());
      unlinkSync(planted);

      unlinkSync(passwordFile);
      symlinkSync(target, passwordFile);
      await expect(startEmbeddedPostgres({ dataDir: join(scratch, 'data'), port, database: 'postgres' })).rejects.toThrow(
        new EmbeddedPostgresError(`the embedded PostgreSQL did not start: ${passwordFile} is a symbolic link, not a file of ours: remove it`),
      );
      expect(readFileSync(target, 'utf8')).toBe(targetText);
      expect(statSync(target).mode & 0o777).toBe(0o600);
    } finally {
      // As root the data was placed elsewhere, in a folder of its own.
      if (dirname(dataDir) !== scratch) rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  }, 120_000);
});
