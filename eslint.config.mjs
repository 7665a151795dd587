import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**', '*.js', '*.mjs', '**/dist/**', 'packages/agent-client/src/generated/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  // One configuration (docs/ARCHITECTURE.md#dependency-rules): production code gets its settings from the config
  // module, validated once at start, never from the environment itself. Exempt: the config modules, tests and test
  // support (specs, testing/ folders).
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'packages/**/*.ts'],
    ignores: ['libs/runtime/src/app-config.ts', 'apps/mcp/src/mcp-config.ts', '**/*spec.ts', '**/testing/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read settings from the config module (libs/runtime/src/app-config.ts: loadAppConfig), not process.env.',
        },
      ],
    },
  },
  // Plain CommonJS files that Node or Jest load before any TypeScript loader (scripts/register.js, the test reporter).
  { files: ['**/*.js', '**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
