/**
 * Two projects, both run by `npm test`:
 * - unit: needs no service and no JDK (test/client, test/cdk, test/unit, and the suites listed
 *   in SERVICE_FREE_SUITES, which run on MemoryJournal or on no journal at all); its setup
 *   points every AWS SDK client at a closed loopback port, so a call that slipped in fails
 *   fast instead of leaving the machine;
 * - integration: everything else, against DynamoDB Local and the SQS emulator, which its
 *   globalSetup starts on 127.0.0.1 and its globalTeardown stops by PID.
 * `npm run test:unit` runs the first alone, on a machine without Java.
 * Jest runs TypeScript through swc (CommonJS output), including the ESM-only packages.
 */
/** Suites outside test/unit that need no service: they move here rather than lose their place beside their kin. */
const SERVICE_FREE_SUITES = [
  'test/engine/races-and-nesting.test.ts',
  'test/function/make-idempotent.test.ts',
  'test/fuzz/key-header.test.ts',
  'test/fuzz/request-body.test.ts',
  'test/handlers/payment-rail.test.ts',
  'test/handlers/payment-request.test.ts',
  'test/http/composition.test.ts',
  'test/http/event-flavors.test.ts',
  'test/journal/attribute-values.test.ts',
  'test/model/guards.test.ts',
  'test/outbox/dispatcher-options.test.ts',
  'test/property/memory-journal-schedules.test.ts',
];

const UNIT_TESTS = [
  '<rootDir>/test/client/**/*.test.ts',
  '<rootDir>/test/cdk/**/*.test.ts',
  '<rootDir>/test/unit/**/*.test.ts',
  ...SERVICE_FREE_SUITES.map((suite) => `<rootDir>/${suite}`),
];

const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  // @aws/lambda-invoke-store loads node:async_hooks through import(), which swc turns into require().
  transformIgnorePatterns: ['/node_modules/(?!(@middy|canonicalize|fauxqs|@aws/lambda-invoke-store)/)'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // ESM-only package without a `require` export condition: point jest at its file.
    '^canonicalize$': '<rootDir>/node_modules/canonicalize/lib/canonicalize.js',
  },
};

export default {
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    { ...shared, displayName: 'unit', testMatch: UNIT_TESTS, setupFiles: ['<rootDir>/test/setup/unit-env.mjs'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/test/client/',
        '<rootDir>/test/cdk/',
        '<rootDir>/test/unit/',
        // Lambda durable functions need Node 22: `npm run test:durable` (jest.durable.config.mjs) runs them.
        '<rootDir>/test/durable/',
        ...SERVICE_FREE_SUITES.map((suite) => `<rootDir>/${suite.replace(/\./g, '\\.')}$`),
      ],
      globalSetup: '<rootDir>/test/setup/global-setup.mjs',
      globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
    },
  ],
};
