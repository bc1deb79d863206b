import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLocalDataLock, type LocalDataLock } from './local-data-lock';

function acquired(result: ReturnType<typeof acquireLocalDataLock>): LocalDataLock {
  if ('heldBy' in result) throw new Error(`lock held by ${JSON.stringify(result.heldBy)}`);
  return result;
}

describe('the local data lock', () => {
  let dataDir: string;
  const lockFile = () => join(dataDir, 'local.lock');
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrp-lock-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is held by one process at a time, and names its holder to the next', () => {
    const lock = acquired(acquireLocalDataLock(dataDir, 'npm start'));
    lock.update({ apiUrl: 'http://127.0.0.1:3000' });
    expect(statSync(lockFile()).mode & 0o077).toBe(0);
    expect(acquireLocalDataLock(dataDir, 'npm run migrate')).toEqual({
      heldBy: { pid: process.pid, command: 'npm start', script: lock.holder.script, apiUrl: 'http://127.0.0.1:3000' },
    });
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    acquired(acquireLocalDataLock(dataDir, 'npm run migrate')).release();
  });

  it('is taken over from a holder that is gone', () => {
    const finished = spawnSync(process.execPath, ['-e', 'process.pid']).pid as number;
    writeFileSync(lockFile(), JSON.stringify({ pid: finished, command: 'npm start', script: 'start.ts' }));
    const lock = acquired(acquireLocalDataLock(dataDir, 'npm start'));
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('is taken over from a live process that runs something else (a recycled process id)', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, command: 'npm start', script: 'not-this-program.ts' }));
    acquired(acquireLocalDataLock(dataDir, 'npm start')).release();
  });

  it('is taken over when the file is unreadable', () => {
    writeFileSync(lockFile(), '{"pid": 12');
    acquired(acquireLocalDataLock(dataDir, 'npm start')).release();
  });

  it('is released only by its holder', () => {
    const lock = acquired(acquireLocalDataLock(dataDir, 'npm start'));
    writeFileSync(lockFile(), JSON.stringify({ pid: 1, command: 'npm start', script: 'init' }));
    lock.release();
    expect(existsSync(lockFile())).toBe(true);
  });

  it('refuses a folder other users may write to, in one line', () => {
    chmodSync(dataDir, 0o777);
    expect(() => acquireLocalDataLock(dataDir, 'npm start')).toThrow(`${dataDir} is writable by other users (mode 777): run chmod go-w ${dataDir}`);
    expect(existsSync(lockFile())).toBe(false);
  });

  it('writes through no symbolic link planted at the lock or a name beside it', () => {
    const target = join(dataDir, 'operator-only');
    writeFileSync(target, '{"pid": 1}', { mode: 0o600 });
    symlinkSync(target, lockFile());
    symlinkSync(target, `${lockFile()}.${process.pid}`);
    const lock = acquired(acquireLocalDataLock(dataDir, 'npm start'));
    lock.update({ apiUrl: 'http://127.0.0.1:3000' });
    expect(lstatSync(lockFile()).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('{"pid": 1}');
    lock.release();
  });
});
