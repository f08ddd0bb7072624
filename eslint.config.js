import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'web-client/dist/', 'var/', 'test-results/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // shared/ runs in Node and in the browser: no Node built-ins, no DOM, no console.
    files: ['shared/**/*.ts'],
    languageOptions: { globals: { ...globals.es2022 } },
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'Buffer', message: 'shared/ runs in the browser: use Uint8Array.' },
        { name: 'document', message: 'shared/ runs in Node too: no DOM.' },
        { name: 'window', message: 'shared/ runs in Node too: no DOM.' },
        { name: 'console', message: 'shared/ has no console: return errors or take a logger.' },
        { name: 'process', message: 'shared/ runs in the browser: no process.' },
      ],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*'], message: 'shared/ runs in the browser: no node:* modules.' }] },
      ],
      'no-console': 'error',
    },
  },
);
