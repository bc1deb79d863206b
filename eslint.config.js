const nx = require('@nx/eslint-plugin');

const nodeBuiltins = require('node:module').builtinModules;
// The embedded PostgreSQL runner is for development and tests: deployed code connects to DATABASE_URL.
// Each lib's contracts: the static types of its procedures' answers (decision 155).
const contractLibs = ['@mrp/data-models', '@mrp/authz', '@mrp/events', '@mrp/automations', '@mrp/views', '@mrp/notifications'];
const contracts = contractLibs.map((lib) => `${lib}/contracts`);
// Each lib's spec set-up (its testing/ folder): for specs, tests, tools and benchmarks, never for production code.
const testingEntries = ['platform', 'authz', 'events', 'data-models', 'notifications', 'automations', 'views', 'runtime'].map((lib) => `@mrp/${lib}/testing`);
const testingOnly = testingEntries.map((name) => ({ name, message: 'Spec set-up is for specs, tests, tools and benchmarks.' }));
const devRunner = { name: '@mrp/platform/dev', message: 'The embedded PostgreSQL runner is for npm start, tools and tests only.' };

module.exports = [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/.data', '**/coverage', 'tmp'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          // Contracts are types only (the rule below): importing one adds no code and no dependency.
          allow: [...testingEntries, '@mrp/platform/deploy', '@mrp/events/receiver', ...contracts],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:field-validation', onlyDependOnLibsWithTags: [] },
            // The text PostgreSQL can store is one rule, field-validation's; input schemas apply it too.
            { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:field-validation'] },
            { sourceTag: 'scope:events', onlyDependOnLibsWithTags: ['scope:platform'] },
            { sourceTag: 'scope:authz', onlyDependOnLibsWithTags: ['scope:platform', 'scope:events'] },
            {
              sourceTag: 'scope:notifications',
              onlyDependOnLibsWithTags: ['scope:platform', 'scope:events', 'scope:authz'],
            },
            {
              sourceTag: 'scope:data-models',
              onlyDependOnLibsWithTags: ['scope:platform', 'scope:events', 'scope:authz', 'scope:field-validation'],
            },
            {
              sourceTag: 'scope:automations',
              onlyDependOnLibsWithTags: ['scope:platform', 'scope:events', 'scope:authz', 'scope:field-validation'],
            },
            // Boards and calendars reach the data of models only through data-models' procedures.
            {
              sourceTag: 'scope:views',
              onlyDependOnLibsWithTags: ['scope:platform', 'scope:events', 'scope:authz'],
            },
            // The composition root wires every lib together for the apps.
            { sourceTag: 'scope:runtime', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:app', onlyDependOnLibsWithTags: ['type:lib'] },
            // The web console runs in browsers and talks to the platform only through /rpc.
            { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:field-validation'] },
            // Its end-to-end tests start a real api process on a real database.
            { sourceTag: 'scope:console-e2e', onlyDependOnLibsWithTags: ['scope:platform', 'scope:runtime'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // A lib's contracts are the static types of its procedures' answers: imported as types, never as code.
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: contracts.map((name) => ({ name, allowTypeImports: true, message: 'Contracts are types: import type { ... }.' })) },
      ],
    },
  },
  {
    files: ['apps/*/src/**/*.{ts,tsx}', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [devRunner, ...testingOnly] }],
    },
  },
  {
    // Browsers import field-validation and the webhook receiver: Node built-ins must never reach them.
    files: ['libs/field-validation/src/**/*.ts', 'libs/events/src/receiver.ts', 'libs/events/src/webhooks/signature/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [...nodeBuiltins, ...nodeBuiltins.map((m) => `node:${m}`), devRunner, ...testingOnly] },
      ],
    },
  },
  {
    // The console's code runs in browsers: no Node built-ins, and no server-side package.
    files: ['apps/console/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...nodeBuiltins.map((m) => `node:${m}`), ...contractLibs],
          patterns: [
            {
              // Gitignore-style: a lib's folder is let in again so that its contracts entry alone can be.
              group: ['@mrp/*', '!@mrp/field-validation', ...contractLibs.flatMap((lib) => [`!${lib}`, `${lib}/*`, `!${lib}/contracts`])],
              message: 'The console imports only @mrp/field-validation and the types of procedure answers (contracts); it reaches the platform through /rpc.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.spec.tsx', '**/test/**/*.ts', '**/testing/**/*.ts', 'apps/console/e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
