import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Local secrets (the embedded database's password, development secrets, the lock) are written and
 * read by whoever runs `npm start`, root included. A folder or file another user could swap for a
 * symbolic link would turn those writes and reads onto files of root's choosing, so each is checked
 * before use and refused in one line.
 */
export class UnsafeLocalPathError extends Error {
  override readonly name = 'UnsafeLocalPathError';
}

// Not on every platform (Windows has neither symbolic-link-safe opens nor owners by uid).
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8);
}

/**
 * Refuses a folder another user could change: it must be a real folder (not a symbolic link),
 * owned by this user (or by one of `owners`), and writable by its owner only.
 */
export function assertPrivateFolder(path: string, owners: readonly number[] = []): void {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (error) {
    throw new UnsafeLocalPathError(`cannot check the folder ${path} (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  if (stat.isSymbolicLink()) throw new UnsafeLocalPathError(`${path} is a symbolic link: make it a real folder (or point LOCAL_DATA_DIR at one)`);
  if (!stat.isDirectory()) throw new UnsafeLocalPathError(`${path} is not a folder: remove it and start again`);
  const uid = currentUid();
  if (uid === undefined) return;
  if (stat.uid !== uid && !owners.includes(stat.uid)) {
    throw new UnsafeLocalPathError(`${path} belongs to another user (uid ${stat.uid}): use a folder of your own (LOCAL_DATA_DIR)`);
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new UnsafeLocalPathError(`${path} is writable by other users (mode ${octal(stat.mode)}): run chmod go-w ${path}`);
  }
}

/** Creates the folder when missing (open to others for reading, as usual), then checks it as above. */
export function ensurePrivateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o755 });
  assertPrivateFolder(path);
}

/**
 * Reads a secret file, or undefined when there is none. A symbolic link, a file of another user,
 * one with other hard links, or one others may read or write is refused.
 */
export function readPrivateFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UnsafeLocalPathError(`${path} is a symbolic link, not a file of ours: remove it`);
    throw new UnsafeLocalPathError(`cannot read ${path} (${code ?? 'unknown error'})`);
  }
  try {
    const stat = fstatSync(fd);
    const uid = currentUid();
    if (!stat.isFile()) throw new UnsafeLocalPathError(`${path} is not a regular file: remove it`);
    if (uid !== undefined) {
      if (stat.uid !== uid) throw new UnsafeLocalPathError(`${path} belongs to another user (uid ${stat.uid}): remove it`);
      if ((stat.mode & 0o177) !== 0) throw new UnsafeLocalPathError(`${path} may be read or written by others (mode ${octal(stat.mode)}): remove it`);
      if (stat.nlink !== 1) throw new UnsafeLocalPathError(`${path} has other hard links: remove it`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a secret file (mode 600) complete under a fresh private name in the same folder, then
 * renames it into place: no symbolic link is followed, and no reader sees it half-written.
 */
export function writePrivateFile(path: string, content: string): void {
  const aside = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  const fd = openSync(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  try {
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, path);
  } catch (error) {
    try {
      unlinkSync(aside);
    } catch {
      // Already renamed or never written: nothing to remove.
    }
    throw error;
  }
}
