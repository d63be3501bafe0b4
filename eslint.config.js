// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// A statement that writes one of the event log's tables.
const EVENT_LOG_WRITE =
  '/(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+"?(webhook_logs|event_attempts|pending_order_keys|idempotency_keys)\\b/i';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'packages/db/src/generated/**',
      'test/artifacts/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Queue and database code must never drop a promise on the floor.
      '@typescript-eslint/no-floating-promises': 'error',
      // Fastify plugins and hooks are async by contract, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false } },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message: 'Use an `as const` object and a union type instead of enum.',
        },
      ],
    },
  },
  {
    // Only the config package reads the environment, so that every setting is validated
    // and documented in one place (README, Configuration); tests, the test harness and
    // scripts may.
    files: ['apps/**/*.ts', 'packages/**/*.ts'],
    ignores: [
      'packages/config/**',
      'packages/test-harness/**',
      '**/*.test.ts',
      '**/scripts/**',
      '**/cli/**',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through @ingest/config.',
        },
      ],
    },
  },
  {
    // One owner for the event log: only packages/event-log writes these tables, so that
    // status changes, lines and attempts always move together. Tests may seed them.
    files: ['apps/**/*.ts', 'packages/**/*.ts'],
    ignores: ['packages/event-log/**', '**/*.test.ts', 'packages/db/src/generated/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message: 'Use an `as const` object and a union type instead of enum.',
        },
        {
          selector: `:matches(TemplateElement[value.raw=${EVENT_LOG_WRITE}], Literal[value=${EVENT_LOG_WRITE}])`,
          message: 'Write the event log through @ingest/event-log.',
        },
        {
          selector:
            'MemberExpression[object.property.name=/^(webhookLog|eventAttempt|pendingOrderKey|idempotencyKey)$/][property.name=/^(create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany)$/]',
          message: 'Write the event log through @ingest/event-log.',
        },
      ],
    },
  },
  {
    // Layers point one way (README, Layout). ESLint's own rule is enough: the layers are
    // folders, so a path pattern names each one, without a resolver-based plugin.
    files: ['packages/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@ingest/(api|worker|dashboard)(/|$)|(^|/)apps/',
              message: 'A package serves the apps; it never imports one.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/access/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^\\.\\./(services|plugins|routes)/|^\\.\\./(app|runtime|server)\\.js$|^@ingest/(worker|dashboard)(/|$)',
              message: 'Access policy sits below services, plugins and routes.',
            },
          ],
        },
      ],
    },
  },
  {
    // Fairness decides who goes next; it knows nothing of what they ask. The apps wire it
    // into Fastify; @ingest/queue imports it, so it imports neither the queue nor the database.
    files: ['packages/fairness/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@ingest/(api|worker|dashboard)(/|$)|(^|/)apps/',
              message: 'A package serves the apps; it never imports one.',
            },
            {
              regex: '^(fastify|fastify-plugin|@fastify/.*|@ingest/(db|queue|event-log|events))$',
              message: 'Fairness sits below HTTP, the queue and the database: the apps wire them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '(^|/)(plugins|routes)/|^(\\.\\./)+(app|runtime|server)\\.js$|^@ingest/(worker|dashboard)(/|$)',
              message:
                'Services know nothing of HTTP: plugins and routes call them, not the reverse.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/plugins/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '(^|/)routes/|^(\\.\\./)+(app|runtime|server)\\.js$|^@ingest/(worker|dashboard)(/|$)',
              message: 'Plugins serve the routes; they never import one.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/worker/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@ingest/(api|dashboard)(/|$)',
              message: 'The worker and the API share packages, not code.',
            },
            {
              // Unit-test fixtures live in apps/worker/test/, outside what the build compiles.
              regex: '(^|/)test/',
              message: 'Fixtures are for unit tests; the worker itself never imports one.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/worker/src/**/*.test.ts', 'apps/worker/test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@ingest/(api|dashboard)(/|$)',
              message: 'The worker and the API share packages, not code.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/**/*.ts'],
    ignores: ['apps/api/src/services/**', 'apps/api/src/plugins/**', 'apps/api/src/access/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@ingest/(worker|dashboard)(/|$)',
              message: 'The worker and the API share packages, not code.',
            },
          ],
        },
      ],
    },
  },
  {
    // The worker routes events by name through a typed catalog: a type assertion there
    // could pair an event with another event's payload without the compiler noticing.
    files: ['apps/worker/src/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }],
    },
  },
  {
    // Tests read JSON bodies (typed `any` by light-my-request) and use `expect.any()`.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
);
