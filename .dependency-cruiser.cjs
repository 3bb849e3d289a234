/**
 * Which way dependencies may point (run by `npm run lint`):
 * core (leaf) <- journal <- engine <- consumer (the batch loop) <- entry points (http, function, sqs,
 * streams); telemetry beside the
 * journal; client imports only the leaf; lib/ (constructs) imports only pure constants; the
 * example (src/handlers, lib/example) is never imported by the library; scripts/ and bench/ use
 * the package as a user would, through its entries, plus the example service.
 */
const LIBRARY = '^src/(?!handlers/)';
const entryPoints = '^src/(http|function|sqs|streams)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle makes the layers meaningless.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-is-a-leaf',
      severity: 'error',
      comment: 'src/core (errors, key rule, hashing, option validator) imports nothing of the toolkit.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'journal-over-the-sdk-only',
      severity: 'error',
      comment: 'The journal is a leaf over the AWS SDK: it may import the core and nothing else.',
      from: { path: '^src/journal/' },
      to: { path: '^src/', pathNot: '^src/(core|journal)/' },
    },
    {
      name: 'telemetry-beside-the-journal',
      severity: 'error',
      from: { path: '^src/telemetry/' },
      to: { path: '^src/', pathNot: '^src/(core|telemetry)/' },
    },
    {
      name: 'engine-below-the-entry-points',
      severity: 'error',
      comment: 'The engine depends on the journal interface, errors and telemetry; never on an entry point.',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: '^src/(core|journal|telemetry|engine)/' },
    },
    {
      name: 'entry-points-do-not-import-each-other',
      severity: 'error',
      from: { path: '^src/(http|function|sqs|streams)/' },
      to: { path: entryPoints, pathNot: '^src/$1/' },
    },
    {
      name: 'framework-doors-stand-apart',
      severity: 'error',
      comment:
        'A framework door (idemkit/express, idemkit/hono, idemkit/fastify) is a translation onto the HTTP guard: it imports the guard, never another door.',
      from: { path: '^src/(express|hono|fastify)/' },
      to: { path: '^src/(express|hono|fastify)/', pathNot: '^src/$1/' },
    },
    {
      name: 'no-framework-outside-its-door',
      severity: 'error',
      comment:
        'The web frameworks are optional peers: only their own door (and its entry) names them, so the root entry and every other entry never load them. The example service (src/handlers) is no entry: its Lambdalith runs on Express.',
      from: {
        path: '^src/',
        pathNot: ['^src/(express|hono|fastify)/', '^src/entries/(express|hono|fastify)\\.ts$', '^src/handlers/'],
      },
      to: { path: ['^src/(express|hono|fastify)/', 'node_modules/(express|hono|fastify|@hono/|@fastify/)'] },
    },
    {
      name: 'consumer-below-the-consumers',
      severity: 'error',
      comment: 'The batch loop every consumer shares (SQS, Kinesis, DynamoDB Streams) knows none of them.',
      from: { path: '^src/consumer/' },
      to: { path: '^src/', pathNot: '^src/(core|journal|telemetry|engine|consumer)/' },
    },
    {
      name: 'streams-entry-loads-no-sqs-code',
      severity: 'error',
      comment: 'idemkit/streams is for stream consumers: no SQS guard, no HTTP middleware, no outbox in its bundle.',
      from: { path: '^src/entries/streams\\.ts$' },
      to: { path: '^src/(sqs|http|function|outbox|client)/', reachable: true },
    },
    {
      name: 'client-imports-only-the-core',
      severity: 'error',
      comment: 'idemkit/client runs in browsers: no AWS SDK, nothing of the server side.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/(core|client)/' },
    },
    {
      name: 'client-runs-in-browsers',
      severity: 'error',
      comment:
        'idemkit/client loads no Node built-in, directly or through another module: it imports the core files it needs, never the core index (which carries node:crypto hashing).',
      from: { path: '^src/client/' },
      to: { path: '^src/core/(index|hash)\\.ts$', reachable: true },
    },
    {
      name: 'client-imports-no-node-built-in',
      severity: 'error',
      from: { path: '^src/(client|core/(errors|options|idempotency-key|journal-record))' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'client-loads-no-aws-sdk',
      severity: 'error',
      from: { path: '^src/(client|core)/' },
      to: { path: '@aws-sdk|@middy|@aws-lambda-powertools' },
    },
    {
      name: 'library-never-imports-the-example',
      severity: 'error',
      from: { path: [LIBRARY, '^lib/(?!example/)'] },
      to: { path: ['^src/handlers/', '^lib/example/', '^bin/'] },
    },
    {
      name: 'runtime-never-imports-cdk',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: 'aws-cdk-lib|constructs|^lib/' },
    },
    {
      name: 'through-the-index',
      severity: 'error',
      comment:
        'Another folder is reached through its index.ts, so its inside can change freely (the browser client excepted: see client-runs-in-browsers).',
      from: { path: '^src/(?!client/)([^/]+)/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'constructs-import-only-pure-constants',
      severity: 'error',
      comment:
        'lib/ may import from src/ only the schema, metric names and environment names, so table, dashboards and runtime cannot drift.',
      from: { path: '^lib/(?!example/)' },
      to: {
        path: '^src/',
        pathNot: '^src/(journal/schema|telemetry/metric-names|core/journal-record|core/environment)\\.ts$',
      },
    },
    {
      name: 'scripts-and-bench-use-the-package-entries',
      severity: 'error',
      comment:
        'scripts/ and bench/ import what a user of the package can import (its entries) and the example service, never the inside of a module: what they need is either public or theirs to write.',
      // The staged-only breakdown times steps inside one call (the staged commit's pieces) that no
      // entry exposes, and should not: it may reach inside. The hot-key simulation's model of the
      // guard's protections reads the two bounds it models (the SDK's attempts on a throttle, the
      // lease memory's span) from their source, so the model cannot drift from what ships.
      from: {
        path: '^(scripts|bench)/',
        pathNot: ['^bench/staged-breakdown\\.ts$', '^scripts/hot-key/protections\\.ts$'],
      },
      to: {
        path: '^(src|lib)/',
        pathNot: [
          '^src/index\\.ts$',
          '^src/entries/[^/]+\\.ts$',
          '^src/(client|outbox|testing|cli)/index\\.ts$',
          '^lib/index\\.ts$',
          '^src/handlers/',
          '^lib/example/',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
