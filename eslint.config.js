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
    // The Slack stand-in (src/sandbox) is also the tests' fake Slack: it hands them blocks as loosely as Slack's JSON.
    files: ['test/**/*.ts', 'src/sandbox/fake-slack.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
