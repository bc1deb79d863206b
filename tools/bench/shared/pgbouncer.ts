import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { freePort } from '@mrp/platform';

export interface PgBouncer {
  /** The pooler's URL for the same database and user as the direct URL it was given. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * PgBouncer (Debian's) in transaction mode in front of `directUrl`'s server, for a benchmark of
 * the apps behind a transaction pooler: `poolSize` server connections per database and user.
 * As root it runs as the postgres user (PgBouncer refuses root).
 */
export async function startPgBouncer(directUrl: string, poolSize: number): Promise<PgBouncer> {
  const direct = new URL(directUrl);
  const user = decodeURIComponent(direct.username) || 'postgres';
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mrp-pgbouncer-'));
  chmodSync(dir, 0o755);
  // PgBouncer's auth file quotes with ", doubled inside a value; only its owner may read the password.
  const quoted = (value: string) => `"${value.replaceAll('"', '""')}"`;
  writeFileSync(join(dir, 'users.txt'), `${quoted(user)} ${quoted(decodeURIComponent(direct.password))}\n`, { mode: 0o600 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'pool_mode = transaction',
      direct.password ? 'auth_type = plain' : 'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'max_client_conn = 1000',
      `default_pool_size = ${poolSize}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), uid, -1);
  }
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const deadline = Date.now() + 5_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PgBouncer (${PGBOUNCER}) did not start on 127.0.0.1:${port}: is Debian's pgbouncer installed?`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = new URL(directUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    pid: child.pid as number,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
