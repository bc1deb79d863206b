import { build } from 'esbuild';
import path from 'node:path';
import vm from 'node:vm';

/**
 * Proves the library runs in a browser: it is bundled for the browser (as the front end would)
 * and executed in a bare V8 context that has none of Node's globals.
 */
const GLOBAL_NAME = 'FieldValidation';

interface BundledLibrary {
  validateRecordData(fields: unknown[], data: unknown, options: { mode: 'create' | 'update' }): unknown;
  validateFilterTree(tree: unknown, fields: unknown[]): unknown;
  computeFormulas(fields: unknown[], data: Record<string, unknown>): Record<string, unknown>;
}

async function loadBundleInBareContext(): Promise<{ library: BundledLibrary; context: vm.Context }> {
  const result = await build({
    entryPoints: [path.join(__dirname, 'index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: GLOBAL_NAME,
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text ?? '';
  // A fresh context only has the ECMAScript built-ins: no require, process, Buffer, module or URL.
  const context = vm.createContext({});
  vm.runInContext(code, context, { filename: 'field-validation.browser.js' });
  // JSON round trips keep assertions independent of the other realm's prototypes.
  const library = vm.runInContext(GLOBAL_NAME, context) as BundledLibrary;
  return { library, context };
}

/** Runs a call inside the bare context and returns its result as plain data of this realm. */
function callInContext(context: vm.Context, expression: string): unknown {
  return JSON.parse(vm.runInContext(`JSON.stringify(${expression})`, context) as string) as unknown;
}

describe('browser bundle', () => {
  let library: BundledLibrary;
  let context: vm.Context;

  beforeAll(async () => {
    ({ library, context } = await loadBundleInBareContext());
  }, 30_000);

  it('runs in a context without Node globals', () => {
    for (const nodeGlobal of ['require', 'process', 'Buffer', 'module', 'exports', 'global', '__dirname']) {
      expect(vm.runInContext(`typeof ${nodeGlobal}`, context)).toBe('undefined');
    }
    expect(typeof library.validateRecordData).toBe('function');
    expect(typeof library.validateFilterTree).toBe('function');
  });

  it('validates records, including rich text through the bundled HTML parser', () => {
    const script = `${GLOBAL_NAME}.validateRecordData(
      [
        { key: 'title', type: 'TEXT', config: {}, required: true },
        { key: 'starts_at', type: 'DATETIME', config: {}, required: false },
        { key: 'body', type: 'RICH_TEXT', config: {}, required: false },
      ],
      %DATA%,
      { mode: 'create' },
    )`;
    const valid = '{ title: "Launch", starts_at: "2024-01-01T10:00:00+02:00", body: "<p>Hi <a href=\\"https://example.com\\">there</a></p>" }';
    expect(callInContext(context, script.replace('%DATA%', valid))).toEqual({
      ok: true,
      value: { title: 'Launch', starts_at: '2024-01-01T08:00:00.000Z', body: '<p>Hi <a href="https://example.com">there</a></p>' },
    });
    const invalid = '{ body: "<img src=x onerror=alert(1)>", extra: 1 }';
    expect(callInContext(context, script.replace('%DATA%', invalid))).toEqual({
      ok: false,
      errors: [
        { field: 'body', code: 'invalid_format', message: expect.stringContaining('<img>') },
        { field: 'extra', code: 'unknown_field', message: expect.any(String) },
        { field: 'title', code: 'required', message: expect.any(String) },
      ],
    });
  });

  it('applies the emptiness rule and refuses text PostgreSQL cannot store, as the server does', () => {
    const fields = [
      { key: 'won', type: 'BOOLEAN', config: {}, required: false },
      { key: 'note', type: 'TEXT', config: {}, required: false },
    ];
    const codes = (data: Record<string, unknown>) => {
      const result = JSON.parse(JSON.stringify(library.validateRecordData(fields, data, { mode: 'update' }))) as {
        ok: boolean;
        errors?: Array<{ field: string; code: string }>;
      };
      return result.ok ? 'ok' : result.errors?.map(({ field, code }) => `${field}:${code}`);
    };
    expect(codes({ won: null, note: '' })).toBe('ok');
    expect(codes({ won: '' })).toEqual(['won:invalid_type']);
    expect(codes({ won: [] })).toEqual(['won:invalid_type']);
    expect(codes({ note: [] })).toEqual(['note:invalid_type']);
    expect(codes({ note: 'a\u0000b' })).toEqual(['note:invalid_format']);
    expect(codes({ note: 'a\ud800' })).toEqual(['note:invalid_format']);
  });

  it('accepts data passed in from another realm', () => {
    const fields = [{ key: 'price', type: 'NUMBER', config: { min: 0 }, required: true }];
    const result = library.validateRecordData(fields, { title: 'Cross-realm', price: 3 }, { mode: 'create' });
    expect(JSON.parse(JSON.stringify(result))).toEqual({ ok: true, value: { title: 'Cross-realm', price: 3 } });
  });

  it('validates filter trees', () => {
    const fields = [{ key: 'price', type: 'NUMBER', config: {}, required: false }];
    const tree = { and: [{ field: 'price', op: 'gt', value: 10 }, { field: 'createdAt', op: 'lt', value: '2024-06-01T00:00:00+02:00' }] };
    expect(JSON.parse(JSON.stringify(library.validateFilterTree(tree, fields)))).toEqual({
      ok: true,
      value: { and: [{ field: 'price', op: 'gt', value: 10 }, { field: 'createdAt', op: 'lt', value: '2024-05-31T22:00:00.000Z' }] },
    });
    const rejected = JSON.parse(JSON.stringify(library.validateFilterTree({ field: 'price', op: 'contains', value: 1 }, fields))) as {
      ok: boolean;
      errors: Array<{ field: string; code: string }>;
    };
    expect(rejected.ok).toBe(false);
    expect(rejected.errors.map(({ field, code }) => ({ field, code }))).toEqual([{ field: 'filter.op', code: 'invalid_option' }]);
  });

  it('computes formulas', () => {
    const fields = [
      { key: 'price', type: 'NUMBER', config: {}, required: false },
      { key: 'total', type: 'FORMULA', config: { expression: 'ROUND({price} * 1.2, 2)', resultType: 'NUMBER' }, required: false },
    ];
    expect(library.computeFormulas(fields, { price: 9.99 })['total']).toBe(11.99);
  });
});
