import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateDevSecrets } from './dev-secrets';

describe('the development secrets of npm start', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mrp-secrets-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('are generated once into a private file and kept', () => {
    const path = join(dataDir, 'dev-secrets.json');
    const secrets = loadOrCreateDevSecrets(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateDevSecrets(path)).toEqual(secrets);
  });

  it('refuses a file that is a symbolic link, leaving its target as it was', () => {
    const target = join(dataDir, 'operator-only');
    writeFileSync(target, '{}', { mode: 0o600 });
    const path = join(dataDir, 'dev-secrets.json');
    symlinkSync(target, path);
    expect(() => loadOrCreateDevSecrets(path)).toThrow(`${path} is a symbolic link, not a file of ours: remove it`);
    expect(readFileSync(target, 'utf8')).toBe('{}');
  });

  it('refuses a folder that is a symbolic link', () => {
    const linked = join(dataDir, 'linked');
    symlinkSync(dataDir, linked);
    expect(() => loadOrCreateDevSecrets(join(linked, 'dev-secrets.json'))).toThrow(
      `${linked} is a symbolic link: make it a real folder (or point LOCAL_DATA_DIR at one)`,
    );
    expect(existsSync(join(dataDir, 'dev-secrets.json'))).toBe(false);
  });
});
