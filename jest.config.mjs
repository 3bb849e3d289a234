/**
 * Two projects, both run by `npm test`:
 * - unit: needs no service and no JDK (test/client, test/cdk, and test/unit: pure engine,
 *   HTTP, journal and migration logic);
 * - integration: everything else, against DynamoDB Local and the SQS emulator, which its
 *   globalSetup starts on 127.0.0.1 and its globalTeardown stops by PID.
 * `npm run test:unit` runs the first alone, on a machine without Java.
 * Jest runs TypeScript through swc (CommonJS output), including the ESM-only packages.
 */
const UNIT_TESTS = [
  '<rootDir>/test/client/**/*.test.ts',
  '<rootDir>/test/cdk/**/*.test.ts',
  '<rootDir>/test/unit/**/*.test.ts',
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
  transformIgnorePatterns: ['/node_modules/(?!(@middy|canonicalize|fauxqs)/)'],
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
    { ...shared, displayName: 'unit', testMatch: UNIT_TESTS },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/test/client/',
        '<rootDir>/test/cdk/',
        '<rootDir>/test/unit/',
      ],
      globalSetup: '<rootDir>/test/setup/global-setup.mjs',
      globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
    },
  ],
};
