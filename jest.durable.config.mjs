import base from './jest.config.mjs';

/**
 * Lambda durable functions, on the SDK's local test runner over DynamoDB Local: `npm run test:durable`.
 * The SDK and its runner need Node 22, so these suites stay out of `npm test` (which also runs on
 * Node 20); CI runs them under Node 22 (`scripts/ci/with-node.sh 22 npm run test:durable`).
 * Same transform and services as the integration project; the runner fakes time process-wide, so
 * each suite runs in a worker of its own.
 */
const integration = base.projects.find((project) => project.displayName === 'integration');

export default {
  testTimeout: base.testTimeout,
  maxWorkers: 1,
  projects: [
    {
      ...integration,
      displayName: 'durable',
      testMatch: ['<rootDir>/test/durable/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
      // Middy 7 (aliased `middy7`, the repository stays on Middy 6 for Node 20) and its util are ESM-only, without a
      // `require` condition: swc transforms them, and jest is pointed at their files.
      transformIgnorePatterns: ['/node_modules/(?!(@middy|middy7|canonicalize|fauxqs)/)'],
      moduleNameMapper: {
        ...integration.moduleNameMapper,
        '^middy7$': '<rootDir>/node_modules/middy7/index.js',
        '^middy7/DurableContext$': '<rootDir>/node_modules/middy7/executionModeDurableContext.js',
        '^@middy/util$': '<rootDir>/node_modules/middy7/node_modules/@middy/util/index.js',
      },
    },
  ],
};
