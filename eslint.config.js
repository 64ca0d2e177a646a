/**
 * Lint and format rules (`npm run lint`, part of `npm test`; `npm run format` applies the fixable
 * ones). Layering and the amount rule are the project's own (scripts/lint/rules.js). Formatting
 * is @stylistic rules set to the house style rather than a reformatting tool: see
 * docs/decisions.md, "Refactor".
 */
import tseslint from 'typescript-eslint';
import stylistic from '@stylistic/eslint-plugin';
import rfq from './scripts/lint/rules.js';

export default tseslint.config(
  { ignores: ['node_modules/**', '**/.rfq-data/**', 'src/chain/artifacts/abis.ts', 'src/chain/artifacts/bytecodes.ts', 'contracts/**'] },
  {
    files: ['**/*.ts', '**/*.js'],
    extends: [tseslint.configs.recommended],
    plugins: { rfq, '@stylistic': stylistic },
    rules: {
      'rfq/layers': 'error',
      'rfq/no-float-amount': 'error',
      'rfq/typed-results': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['ConditionalExpression', 'ConditionalExpression *', 'TemplateLiteral *'] }],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/eol-last': 'error',
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/no-tabs': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0 }],
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/comma-spacing': 'error',
      '@stylistic/arrow-parens': ['error', 'always'],
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/linebreak-style': ['error', 'unix'],
    },
  },
  {
    // Tests poke at wire shapes they assert on; `any` there is the shape under test.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
