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
      'max-len': ['error', { code: 120, ignoreUrls: false }],
      // `const { to: _to, ...rest } = options` is how a key is left out of an object.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // Every apache-arrow DataType class has a toString (`Int64`, `Timestamp<MICROSECOND, UTC>`); the base's typing
      // does not say so.
      '@typescript-eslint/no-base-to-string': ['error', { ignoredTypeNames: ['DataType', 'Error', 'RegExp', 'URL'] }],
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
