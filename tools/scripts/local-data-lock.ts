import { randomBytes } from 'node:crypto';
import { closeSync, constants, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ensurePrivateFolder, processAlive } from '@mrp/platform';

/** The checkout's folder of local state: embedded PostgreSQL data, generated development secrets, the lock. */
export function localDataDir(env: NodeJS.ProcessEnv, workspaceRoot: string): string {
  return resolve(workspaceRoot, env.LOCAL_DATA_DIR?.trim() || '.data');
}

export interface LockHolder {
  pid: number;
  /** What holds it, as the operator typed it: `npm start`, `npm run migrate`. */
  command: string;
  /** The script's file name, to tell our process from another that reuses its id. */
  script: string;
  /** Where the api answers, once known. */
  apiUrl?: string;
  /** The embedded PostgreSQL it runs, once started (its password stays in its data folder). */
  embeddedPostgres?: { dataDir: string; port: number };
}

export interface LocalDataLock {
  holder: LockHolder;
  update(change: Partial<Pick<LockHolder, 'apiUrl' | 'embeddedPostgres'>>): void;
  release(): void;
}

const LOCK_FILE = 'local.lock';


/** Whether the recorded process still runs our script (a rebooted machine may have given its id to another). */
function stillHolds(holder: LockHolder): boolean {
  if (!Number.isInteger(holder.pid) || !processAlive(holder.pid)) return false;
  try {
    return readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8').includes(holder.script);
  } catch {
    return true;
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    // A symbolic link is no lock of ours: unreadable, so it is taken over (the link removed).
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      return JSON.parse(readFileSync(fd, 'utf8')) as LockHolder;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Writes the whole file aside first (a fresh file, no link followed), so a reader never sees it half-written. */
function writeAside(path: string, holder: LockHolder): string {
  const aside = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  const fd = openSync(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return aside;
}

/**
 * One process at a time uses a checkout's local data (`npm start`, or `npm run migrate` on the
 * embedded database). The lock is a file naming its holder; a holder that is gone (killed,
 * machine rebooted) leaves a stale file that the next start takes over, so an unclean stop never
 * blocks the next one.
 */
export function acquireLocalDataLock(dataDir: string, command: string): LocalDataLock | { heldBy: LockHolder } {
  // The usual mode: the postgres user passes through to the data (as root), each file inside is private.
  // Ours alone to change: another user's link there would turn our writes onto their target.
  ensurePrivateFolder(dataDir);
  const path = join(dataDir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, command, script: basename(process.argv[1] ?? command) };
  for (let attempt = 0; attempt < 5; attempt++) {
    const aside = writeAside(path, holder);
    try {
      // link() creates the lock complete, or fails when another process holds it.
      linkSync(aside, path);
      return {
        holder,
        update(change) {
          Object.assign(holder, change);
          renameSync(writeAside(path, holder), path);
        },
        release() {
          if (readHolder(path)?.pid === process.pid) unlinkSync(path);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(aside);
    }
    const current = readHolder(path);
    if (current && stillHolds(current)) return { heldBy: current };
    try {
      unlinkSync(path);
    } catch {
      // Another start removed it first; try again.
    }
  }
  throw new Error(`could not take the lock ${path}: remove it if no npm start or npm run migrate is running`);
}
