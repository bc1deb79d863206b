import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { type Stats } from 'node:fs';
import { chmod, chown, link, lstat, mkdir, readdir, readlink, rm, copyFile, symlink } from 'node:fs/promises';
import { realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { EmbeddedPostgresError } from './embedded-postgres-error';

/**
 * PostgreSQL refuses to run as root, so as root the embedded server runs as the `postgres`
 * system user. That user must be able to enter every folder on the way to the binaries and
 * to the data. A checkout in root's home or in a `mktemp -d` folder (mode 700) is out of its
 * reach; what it cannot reach is placed in a folder of ours under the temporary folder,
 * open to root and the `postgres` group only.
 */

export interface SystemUser {
  uid: number;
  gid: number;
}

export interface ServerPlacement {
  /** Folder holding `bin/`, `lib/` and `share/` of the PostgreSQL distribution. */
  distributionDir: string;
  /** The data folder the server really uses. */
  dataDir: string;
  /** Our folder for this server under the temporary folder, when something had to move there. */
  homeDir?: string;
}

const run = promisify(execFile);
const PLACEMENT_ROOT_NAME = 'mrp-embedded-postgres';
// Root and the postgres group may enter; nobody may list or write but root.
const PLACEMENT_DIR_MODE = 0o710;

type StatOf = (path: string) => Pick<Stats, 'mode' | 'uid' | 'gid'>;

/** Whether `user` may pass through (search) a folder with these owner and mode bits. */
function maySearch(stat: Pick<Stats, 'mode' | 'uid' | 'gid'>, user: SystemUser): boolean {
  // Processes spawned with a uid drop their supplementary groups, so only the primary group counts.
  const bits = stat.uid === user.uid ? stat.mode >> 6 : stat.gid === user.gid ? stat.mode >> 3 : stat.mode;
  return (bits & 0o1) === 0o1;
}

/**
 * Whether `user` can reach `dir` (every folder from `/` down to it searchable). A path that does
 * not exist yet is judged by its nearest existing folder: what we create on the way is ours to open.
 */
export function canReach(dir: string, user: SystemUser, statOf: StatOf = statSync): boolean {
  let current = resolve(dir);
  const chain: string[] = [];
  for (;;) {
    chain.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  let found = false;
  for (const folder of chain) {
    let stat: Pick<Stats, 'mode' | 'uid' | 'gid'>;
    try {
      stat = statOf(folder);
    } catch {
      if (!found) continue;
      return false;
    }
    found = true;
    if (!maySearch(stat, user)) return false;
  }
  return true;
}

async function idOf(flag: '-u' | '-g'): Promise<number> {
  const { stdout } = await run('id', [flag, 'postgres']);
  return Number.parseInt(stdout.trim(), 10);
}

/** The `postgres` system user, created (as a system account without a home) when missing. */
export async function postgresSystemUser(): Promise<SystemUser> {
  try {
    return { uid: await idOf('-u'), gid: await idOf('-g') };
  } catch {
    // Not there yet: create it below.
  }
  try {
    await run('groupadd', ['--system', 'postgres']).catch(async (error: { code?: number }) => {
      // 9: the group exists already (left by an earlier, half-finished attempt).
      if (error.code !== 9) throw error;
    });
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return { uid: await idOf('-u'), gid: await idOf('-g') };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new EmbeddedPostgresError(
      `running as root, the embedded PostgreSQL needs a "postgres" system user and could not create one (${reason}): ` +
        'create it (useradd --system postgres), run npm as another user, or set DATABASE_URL',
    );
  }
}

/** Our folder under the temporary folder; refuses one that someone else could have planted. */
async function placementDir(path: string, user: SystemUser): Promise<string> {
  await mkdir(path, { recursive: true, mode: PLACEMENT_DIR_MODE });
  const stat = await lstat(path);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new EmbeddedPostgresError(`${path} is not a folder owned by root and writable by root only: remove it and start again`);
  }
  await chown(path, 0, user.gid);
  await chmod(path, PLACEMENT_DIR_MODE);
  return path;
}

/**
 * Mirrors the distribution with hard links (a copy across file systems): the server finds
 * `lib/` and `share/` relative to its binary, so the mirror runs as the original would.
 */
async function mirror(source: string, target: string): Promise<void> {
  await mkdir(target, { mode: 0o755 });
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) {
      await mirror(from, to);
    } else if (entry.isSymbolicLink()) {
      await symlink(await readlink(from), to);
    } else {
      await link(from, to).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EXDEV' && error.code !== 'EPERM') throw error;
        await copyFile(from, to);
        await chmod(to, (await lstat(from)).mode & 0o777);
      });
    }
  }
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Where a server run by `user` finds its binaries and data: where they are when it can reach
 * them, else in `<tmp>/mrp-embedded-postgres/<folder of this data>/` (the data there persists
 * across starts; the binaries are linked anew each start and removed at stop).
 */
export async function placeForUser(distributionDir: string, dataDir: string, user: SystemUser): Promise<ServerPlacement> {
  const binariesReachable = canReach(join(distributionDir, 'bin'), user);
  const dataReachable = canReach(dirname(dataDir), user);
  if (binariesReachable && dataReachable) return { distributionDir, dataDir };

  const root = join(tmpdir(), PLACEMENT_ROOT_NAME);
  if (!canReach(dirname(root), user)) {
    throw new EmbeddedPostgresError(
      `running as root, the embedded PostgreSQL runs as the "postgres" user, who cannot enter ${dirname(root)}: ` +
        'set TMPDIR to a folder it can enter, run npm as another user, or set DATABASE_URL',
    );
  }
  await placementDir(root, user);
  const id = createHash('sha256').update(realpathOrSelf(dataDir)).digest('hex').slice(0, 16);
  const homeDir = await placementDir(join(root, id), user);
  let placedDistribution = distributionDir;
  if (!binariesReachable) {
    placedDistribution = join(homeDir, 'distribution');
    await rm(placedDistribution, { recursive: true, force: true });
    await mirror(distributionDir, placedDistribution);
  }
  return { distributionDir: placedDistribution, dataDir: dataReachable ? dataDir : join(homeDir, 'data'), homeDir };
}
