// Lint rules for `npm run lint` (formatting is Prettier's: .prettierrc.json; structure rules: .dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.dependency-cruiser.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
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
    // The Slack stand-in (src/sandbox) reads and hands out Slack's JSON (blocks, views, payloads) as loosely as
    // Slack sends it; it is also the tests' fake Slack.
    files: ['test/**/*.ts', 'src/sandbox/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The sandbox's page: plain browser scripts (ES modules).
    files: ['src/sandbox/page/**/*.js'],
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
          'URL',
          'URLSearchParams',
          'Node',
          'CSS',
          'setTimeout',
          'requestAnimationFrame',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
