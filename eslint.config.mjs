import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.local/**',
      'docs/**',
      'dist/**',
      'cdk.out/**',
      'node_modules/**',
      'coverage/**',
      'bench/fixtures/**',
      'site/**',
      '.artifacts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        globalThis: 'readonly',
        __dirname: 'readonly',
        URL: 'readonly',
        setImmediate: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // CommonJS configuration files (dependency-cruiser's).
    files: ['**/*.cjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // A consumer project's code, as a user writes it: CommonJS `require` and Jest's globals.
    files: ['scripts/consumer-check/fixtures/**'],
    languageOptions: { globals: { require: 'readonly', Response: 'readonly', test: 'readonly', expect: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
