// ESLint checks for mistakes; Prettier owns the layout (docs/decisions/033-lint-and-format.md). No rule here needs
// type information, so `npm run lint` stays fast (it reads the files, it does not run the type checker).
import js from '@eslint/js'
import { defineConfig, globalIgnores } from 'eslint/config'
import importX from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig([
  // What builds, tests and the embedded database leave behind (the same list as .prettierignore).
  globalIgnores([
    'build/',
    'data/',
    '.cache/',
    '.test-reports/',
    'test-results/',
    'playwright-report/',
    'blob-report/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX },
    settings: {
      // The package.json `imports` aliases are the app's own modules.
      'import-x/internal-regex': '^#(app|models|migrations|tests)/',
      // Resolves those aliases to their files, so the layer rules below see where an import leads.
      'import-x/resolver-next': [importX.createNodeResolver()],
    },
    rules: {
      // One order everywhere, fixed by `npm run lint:fix`: node built-ins, packages, the app's own `#…` modules,
      // then relative paths; alphabetical inside each group, no blank lines (the code has none today).
      'import-x/order': [
        'error',
        {
          groups: ['builtin', 'external', 'internal', ['parent', 'sibling', 'index'], 'type'],
          'newlines-between': 'never',
          alphabetize: { order: 'asc', caseInsensitive: true },
        },
      ],
      'import-x/first': 'error',
      'import-x/newline-after-import': 'error',
      'import-x/no-duplicates': 'error',
      // Prettier wraps code at 120 (.prettierrc) but never a comment: this catches the comments and what Prettier
      // could not break. A long string, template or regex stays whole here (splitting prose or SQL mid-sentence
      // reads worse); wrap those by hand when they are touched.
      'max-len': [
        'error',
        {
          code: 120,
          tabWidth: 2,
          ignoreUrls: true,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
        },
      ],
      // App code logs through the logger (app/server/logger), which tests silence and production ships as JSON.
      'no-console': 'error',
      // An unused name is an error, but `_` marks one kept on purpose (a rest sibling, a placeholder argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The layers (docs/decisions/054-composition-root-and-layers.md): each imports only the ones below it. app/main
    // composes the process (job workers, server hooks) and is imported by none of them; the ground (app/server: the
    // database, env, logger, the queue by name, HTTP helpers) knows no service; models know no service, route or
    // component; components know no route and no model (a model's shapes reach them through app/types); app/utils
    // and app/types are shared by every side and know none of them. Tests and scripts may reach anything.
    files: ['app/**/*.{ts,tsx}', 'models/**/*.ts', 'migrations/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: ['./models', './migrations'],
              from: ['./app/services', './app/routes', './app/components', './app/main'],
              message: 'Models know no service, route or component.',
            },
            {
              target: './app/services',
              from: ['./app/routes', './app/components', './app/main'],
              message: 'Services know no route or component.',
            },
            {
              target: './app/components',
              from: ['./app/routes', './models', './app/main'],
              message: "Components know no route and no model: a model's types reach them through app/types.",
            },
            {
              // Components do use the pure service modules (loyalty-scheme.ts, activity-labels.ts); a glob zone
              // cannot be mixed with plain paths, hence its own.
              target: './app/components',
              from: ['./app/services/**/*.server.{ts,tsx}'],
              message: "Components import no service's server module: the shapes they show live in app/types.",
            },
            {
              target: './app/server',
              from: ['./app/services', './app/routes', './app/components', './app/main'],
              message: 'The ground (app/server) knows no service: the composition root, app/main, joins them.',
            },
            {
              target: ['./app/utils', './app/types'],
              from: ['./app/server', './app/services', './app/routes', './app/components', './app/main', './models'],
              message: 'app/utils and app/types are shared by every layer and import none of them.',
            },
          ],
        },
      ],
    },
  },
  {
    // One way to fail (docs/decisions/055-one-way-to-fail.md): a page's 404 or 403 is thrown by the helpers of
    // app/server/http-errors.server.ts, a form that stops answers through formReply, and every action reads its body
    // with readFormData (request.formData() throws on a body that is no form: a 500).
    files: ['app/**/*.{ts,tsx}'],
    ignores: ['app/server/form-data.server.ts', 'app/server/form-reply.server.ts', '**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ThrowStatement > CallExpression[callee.name='data']",
          message: 'Throw notFound(), forbidden() or invariantResponse() from #app/server/http-errors.server.ts.',
        },
        {
          selector: "CallExpression[callee.name='data'] > ObjectExpression > Property[key.name='result']",
          message: "A form's reply goes through formReply (#app/server/form-reply.server.ts).",
        },
        {
          selector: "CallExpression[callee.object.name='request'][callee.property.name='formData']",
          message: 'Read the form with readFormData(request) (#app/server/form-data.server.ts).',
        },
      ],
    },
  },
  {
    // Hooks live in app/ only; elsewhere `use` is Playwright's fixture callback, which the rules of hooks mistake
    // for React's `use`.
    files: ['app/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    rules: {
      // The code passes it, so a missing dependency fails instead of warning.
      'react-hooks/exhaustive-deps': 'error',
      // Meant for the React Compiler, which the app does not use: it refuses `useEffect(() => setHydrated(true), [])`,
      // the way a component draws what needs JavaScript only after hydration (every page works without JavaScript).
      'react-hooks/set-state-in-effect': 'off',
    },
  },
  {
    // Command-line tools and tests print to the person running them; server.ts prints the startup failure and the
    // demo account's sign-in to the terminal of whoever started the server.
    files: ['scripts/**', 'tests/**', 'server.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['public/pass-sw.js'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
])
