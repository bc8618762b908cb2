// ESLint: the recommended rules of ESLint and of typescript-eslint, type-aware (about 12 s for the whole tree), over
// src, pipelines, test and the config files. Layout is prettier's (.prettierrc.json, `npm run format:check`); the one
// layout rule here is max-len, for the comments and strings prettier does not wrap.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'output/', '.scratch/', '.img-etl-staging*/'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      // tsconfig.eslint.json: tsconfig.json's options over every TypeScript file, tests included.
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Core max-len is deprecated (formatting rules move out of ESLint) but kept until ESLint 11; prettier wraps
      // code at 120 and this catches the long comments and strings it leaves.
      // A regular expression literal cannot be wrapped.
      'max-len': ['error', { code: 120, ignoreUrls: false, ignoreRegExpLiterals: true }],
      // `const { to: _to, ...rest } = options` leaves a key out; `for await (const _ of it)` only counts.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, varsIgnorePattern: '^_' }],
      // Every apache-arrow DataType class has a toString (`Int64`, `Timestamp<MICROSECOND, UTC>`); the base's typing
      // does not say so.
      '@typescript-eslint/no-base-to-string': ['error', { ignoredTypeNames: ['DataType', 'Error', 'RegExp', 'URL'] }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // A test's stand-in stream is an async generator that only yields (or throws), its failing call an async
      // function that only throws: the simplest way to write them, with nothing to await.
      '@typescript-eslint/require-await': 'off',
      // Tests look for terminal escapes (\x1b[K) and control characters in output on purpose.
      'no-control-regex': 'off',
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
