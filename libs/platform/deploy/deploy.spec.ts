import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBundle } from '@mrp/platform/deploy';

const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');

describe('app bundles', () => {
  let folder: string;
  beforeAll(() => {
    // Inside the workspace, as the apps' bundles are: packages resolve from its node_modules.
    mkdirSync(join(WORKSPACE_ROOT, 'tmp'), { recursive: true });
    folder = mkdtempSync(join(WORKSPACE_ROOT, 'tmp', 'bundle-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('take the workspace libs in, leave packages to node_modules, and map stack traces to the TypeScript', () => {
    const entry = join(folder, 'entry.ts');
    writeFileSync(
      entry,
      [
        "import { DomainError } from '@mrp/platform';",
        "import { v7 } from 'uuid';",
        'const id: string = v7();',
        "process.stdout.write(`${id.length}\\n`);",
        "throw new DomainError('not_found', 'thrown on purpose');",
        '',
      ].join('\n'),
    );
    const outfile = join(folder, 'out', 'main.js');
    buildBundle(entry, outfile);

    const bundle = readFileSync(outfile, 'utf8');
    expect(bundle).not.toMatch(/require\("@mrp\//);
    expect(bundle).toMatch(/require\("uuid"\)/);
    expect(bundle.trimEnd().endsWith('//# sourceMappingURL=main.js.map')).toBe(true);

    const run = spawnSync(process.execPath, ['--enable-source-maps', outfile], { encoding: 'utf8' });
    expect(run.stdout).toBe('36\n');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('thrown on purpose');
    expect(run.stderr).toMatch(/entry\.ts:5:\d+/);
  });
});
