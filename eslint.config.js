// ESLint: the recommended rules of ESLint and of typescript-eslint, type-aware (about 12 s for the whole tree), over
// src, pipelines, test and the config files. Layout is prettier's (.prettierrc.json, `npm run format:check`); the one
// layout rule here is max-len, for the comments and strings prettier does not wrap. The house's shape is checked too:
// no import cycle, and imports run one way through the layers (LAYERS, below).
import eslint from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * src's folders from the lowest layer up: a folder may import its own layer and those below, never one above.
 * load (writers) and extract (HTTP, staging) stand side by side, and so do report, diff and files; snapshot (what a
 * snapshot folder holds, read back: its file names, manifest, data files) is below the runner, which reads an earlier
 * snapshot too, and below every command that reads one.
 */
const LAYERS = [
  ['text'],
  ['schema'],
  ['transform'],
  ['load', 'extract'],
  ['snapshot'],
  ['run'],
  ['report', 'diff', 'files'],
  ['cli'],
];

/** One zone per layer: its folders may not import any folder of a higher layer (nor src/index.ts, the top). */
const layerZones = LAYERS.flatMap((layer, i) =>
  layer.map((folder) => ({
    target: `./src/${folder}`,
    from: [
      ...LAYERS.slice(i + 1)
        .flat()
        .map((above) => `./src/${above}`),
      './src/index.ts',
    ],
    message: `src/${folder} is below ${LAYERS.slice(i + 1)
      .flat()
      .join(', ')}: move what both need down instead`,
  })),
);

/**
 * Inside a folder, its rooms from the lowest up, the same way: a room may import its own folder's files and the rooms
 * below it, never one above. Paging fetches; staging keeps what was fetched; completeness proves the staged set whole.
 */
const ROOMS = {
  extract: ['paging', 'staging', 'completeness'],
  load: ['file-system', 'csv', 'arrow', 'parquet'],
  cli: ['options', 'printing', 'commands'],
  run: ['write', 'publish', 'index', 'incremental'],
  service: ['basics', 'collections', 'records', 'changes', 'dataset', 'faults', 'http', 'media', 'endpoints'],
};

/** One zone per room: it may not import a room above it in its folder. */
const roomZones = Object.entries(ROOMS).flatMap(([folder, rooms]) =>
  rooms.slice(0, -1).map((room, i) => ({
    target: `./src/${folder}/${room}`,
    from: rooms.slice(i + 1).map((above) => `./src/${folder}/${above}`),
    message: `src/${folder}/${room} is below ${rooms.slice(i + 1).join(', ')}: move what both need down instead`,
  })),
);

/** The bundled service imports only schema and text; a pipeline only the public entry point, as a user's would. */
const otherZones = [
  {
    target: './src/service',
    from: './src',
    except: ['./service', './schema', './text'],
    message: 'the bundled service imports only src/schema and src/text',
  },
  {
    target: './pipelines',
    from: './src',
    except: ['./index.ts'],
    message: "a pipeline imports only src/index.ts, as a user's pipeline would",
  },
];

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
  {
    files: ['src/**/*.ts', 'pipelines/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // `./x.js` names `./x.ts`; without the extensions and the parser, the cycle rule sees no TypeScript module.
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.eslint.json' })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      // Small functions: none over 100 lines, every line counted (comments, blank lines and templates too); tests'
      // describe blocks are left out.
      'max-lines-per-function': ['error', { max: 100 }],
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: [...layerZones, ...roomZones, ...otherZones] }],
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
