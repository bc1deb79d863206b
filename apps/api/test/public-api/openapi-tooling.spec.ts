import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import * as ts from 'typescript';
import { startTestApi, type TestApi } from '../support/test-api';
import { createOrganizationWithKey, type OrganizationWithKey } from '../support/public-api-fixtures';
import { createEveryTypeModel } from '../support/every-field-type';

const run = promisify(execFile);

/** The command-line entry of an installed package, as its package.json names it. */
function binOf(packageName: string, command: string): string {
  const manifest = require.resolve(`${packageName}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bin[command]);
}

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

/** Redocly CLI with the `recommended-strict` ruleset (every warning an error), offline: no telemetry, no update check. */
async function redoclyLint(file: string, directory: string): Promise<LintReport> {
  const config = join(directory, 'redocly.yaml');
  writeFileSync(config, 'extends:\n  - recommended-strict\n');
  const outcome = await run(process.execPath, [binOf('@redocly/cli', 'redocly'), 'lint', file, '--config', config, '--format=json'], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(outcome.stdout) as LintReport;
}

const summary = (report: LintReport) => report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);

/** Type-checks one script against the generated client, strictly; the diagnostics as `line: message`. */
function typeCheck(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // The language only: no DOM, no @types, so the check is about the generated client alone (and quick).
    lib: ['lib.es2022.d.ts'],
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
    return `${diagnostic.file ? diagnostic.file.fileName.split('/').pop() : ''}:${line}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
  });
}

/** What the document promises to tools: a clean lint, and a typed client that really types records. */
describe('The OpenAPI documents with standard tooling', () => {
  let api: TestApi;
  let org: OrganizationWithKey;
  let directory: string;
  let genericFile: string;
  let typedFile: string;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_API_BURST: '1000' });
    org = await createOrganizationWithKey(api, { name: 'Tooling Inc' });
    await createEveryTypeModel(org);
    directory = mkdtempSync(join(tmpdir(), 'openapi-tooling-'));
    genericFile = join(directory, 'generic.json');
    typedFile = join(directory, 'typed.json');
    writeFileSync(genericFile, await (await api.request('/api/v1/openapi.json')).text());
    const typed = await api.request('/api/v1/openapi.json', { token: org.key.token });
    expect(typed.status).toBe(200);
    writeFileSync(typedFile, await typed.text());
  });
  afterAll(async () => {
    rmSync(directory, { recursive: true, force: true });
    await api.close();
  });

  describe('redocly lint, recommended-strict', () => {
    it('finds no problem at all in the generic document', async () => {
      const report = await redoclyLint(genericFile, directory);
      expect(summary(report)).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    });

    it('finds no problem at all in the typed document of an organization with every field type', async () => {
      const report = await redoclyLint(typedFile, directory);
      expect(summary(report)).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    });

    it('would report an example that contradicts its schema (the lint really checks examples)', async () => {
      const document = JSON.parse(readFileSync(typedFile, 'utf8'));
      document.paths['/models/invoice/records'].post.requestBody.content['application/json'].example.data.score = 'not a number';
      const broken = join(directory, 'broken.json');
      writeFileSync(broken, JSON.stringify(document));
      const report = await redoclyLint(broken, directory);
      // The body is one record's or a batch's (oneOf): the lint may report the example against each.
      expect(report.problems.length).toBeGreaterThan(0);
      expect(new Set(report.problems.map((problem) => problem.ruleId))).toEqual(new Set(['no-invalid-media-type-examples']));
    });
  });

  describe('a client generated by openapi-typescript', () => {
    let schemaFile: string;
    beforeAll(async () => {
      schemaFile = join(directory, 'schema.d.ts');
      await run(process.execPath, [binOf('openapi-typescript', 'openapi-typescript'), typedFile, '--output', schemaFile], { env: { ...process.env, NO_COLOR: '1' } });
    });

    const script = (name: string, body: string) => {
      const file = join(directory, name);
      writeFileSync(
        file,
        [
          "import type { components, paths } from './schema';",
          "type Invoice = components['schemas']['invoice.Data'];",
          "type NewInvoice = paths['/models/invoice/records']['post']['requestBody']['content']['application/json'];",
          "type CreatedInvoice = paths['/models/invoice/records']['post']['responses'][201]['content']['application/json'];",
          "type AnyRecord = components['schemas']['AnyRecord'];",
          body,
        ].join('\n'),
      );
      return file;
    };

    it('compiles a script that uses a model as typed', () => {
      const file = script(
        'uses-invoice.ts',
        [
          "const invoice: Invoice = { title: 'March', score: 42, status: 'draft', labels: ['vip'], due_on: '2024-03-31', customer: null };",
          'export const body: NewInvoice = { data: invoice };',
          "export const scoreOf = (created: CreatedInvoice): number => ('items' in created ? created.items[0].data.score : created.data.score);",
          "export const batch: NewInvoice = { records: [{ data: invoice }] };",
          "export const describe = (record: AnyRecord): string => (record.model === 'invoice' ? `score ${record.data.score.toFixed(1)}` : record.data.title);",
        ].join('\n'),
      );
      expect(typeCheck(file)).toEqual([]);
    });

    it('refuses a script that gives a NUMBER field a string', () => {
      const file = script('wrong-type.ts', "export const invoice: Invoice = {\n  title: 'March',\n  score: 'not a number',\n};");
      expect(typeCheck(file)).toEqual(["wrong-type.ts:8: TS2322 Type 'string' is not assignable to type 'number'."]);
    });

    it('refuses a SELECT value that is not one of its options, and a missing required field', () => {
      const file = script('wrong-option.ts', "export const invoice: Invoice = { title: 'March', score: 1, status: 'closed' };\nexport const partial: Invoice = { title: 'No score' };");
      expect(typeCheck(file)).toEqual([
        expect.stringMatching(/^wrong-option\.ts:6: TS2322 Type '"closed"' is not assignable to type '"draft" \| "sent" \| null \| undefined'\.$/),
        expect.stringMatching(/^wrong-option\.ts:7: TS2741 Property 'score' is missing/),
      ]);
    });
  });
});
