import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      'bench/results/**',
      'coverage/**',
      'console/dist/**',
      'test/fixtures/openapi-client/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // The domain is pure: no I/O libraries, no clock, no randomness.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'express',
                'pg',
                'ioredis',
                'socket.io',
                'node:*',
                'fs',
                'http',
                'net',
                'crypto',
                '**/infra/**',
                '**/http/**',
                '**/commands/**',
                '**/projections/**',
                '**/realtime/**',
              ],
              message: 'src/domain is pure: no I/O or outer-layer imports.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'decide/evolve never read the clock: take metadata.now.',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'decide/evolve never read the clock.',
        },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'no randomness in the domain.' },
        { selector: "CallExpression[callee.name='parseFloat']", message: 'no floating point on money paths.' },
      ],
    },
  },
);
