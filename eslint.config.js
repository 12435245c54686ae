// Lint rules for `npm run lint` (formatting is Prettier's: .prettierrc.json; structure rules: .dependency-cruiser.cjs).
// Type-checked (recommendedTypeChecked): the rules that matter most for async Bolt listeners (no-floating-promises,
// no-misused-promises, await-thenable) need the types.
import js from '@eslint/js';
import unicorn from 'eslint-plugin-unicorn';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // `ids.map(inlineCode)` hands inlineCode the index as its second parameter (there, its maximum length): a
    // function passed by reference to map/filter/forEach/some/... receives the index and the array too, so
    // callbacks are arrow functions that pass only what the function is meant to get.
    files: ['src/**/*.ts', 'sandbox/**/*.ts', 'test/**/*.ts'],
    plugins: { unicorn },
    rules: { 'unicorn/no-array-callback-reference': 'error' },
  },
  {
    // A type assertion (`x as T`) tells the compiler to trust what it cannot check: the app's code reads what it
    // did not write (rows, JSON, errors, Slack's and the Mint service's answers) through a schema (zod, parseJson),
    // a type guard (unknown-fields.ts) or a typed API instead. One that cannot be avoided says why in its disable comment.
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }] },
  },
  {
    // `x['member']` is how TypeScript lets code read a `private` member: a capability could reach the database
    // handle inside a repository it was given, past the store the wiring narrowed for it (app.ts, capabilityStore).
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/dot-notation': [
        'error',
        { allowPrivateClassPropertyAccess: false, allowProtectedClassPropertyAccess: false },
      ],
    },
  },
  {
    // Capabilities listen through the request pipeline (src/platform/slack/pipeline/listen.ts), which settles every
    // request's outcome, once-only delivery and failure telling; a bare Bolt listener would skip all of it.
    files: ['src/**/*.ts'],
    ignores: ['src/platform/slack/pipeline/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['action', 'view', 'shortcut', 'command', 'function', 'event', 'options', 'message'].map((property) => ({
          object: 'app',
          property,
          message: 'Register listeners with listen(app, deps) from src/platform/slack/pipeline/listen.ts.',
        })),
      ],
    },
  },
  {
    // Plain Node scripts (the benchmark's baseline apps): Node's globals.
    files: ['**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'fetch', 'console', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'AbortSignal'].map(
          (name) => [name, 'readonly'],
        ),
      ),
    },
  },
  {
    // Tests, and the Slack stand-in (sandbox/, also the tests' fake Slack), read and hand out Slack's and the
    // Mint service's JSON (blocks, views, payloads) as loosely as it is sent, without a schema for each: `any`
    // is allowed there, and so is using it. Their test doubles implement async interfaces without awaiting.
    // The promise rules (floating, misused, thenable) still apply.
    files: ['test/**/*.ts', 'sandbox/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The sandbox's page: plain browser scripts (ES modules).
    files: ['sandbox/page/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'localStorage',
          'fetch',
          'EventSource',
          'FileReader',
          'URL',
          'URLSearchParams',
          'Node',
          'CSS',
          'setTimeout',
          'clearTimeout',
          'requestAnimationFrame',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
