// Consumer check: packs this package as `npm publish` would, installs the tarball into scratch
// projects with its peers from the npm registry (once at the newest and once at the lowest
// version of every peer range package.json declares), and proves in each:
//   ESM import and CommonJS require of every entry, with real round trips against DynamoDB
//   Local, the SQS emulator and an EventBridge stub; Jest's default (CommonJS) configuration;
//   TypeScript under node16 (.mts and .cts) and bundler resolution, and under the strictest settings
//   (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, skipLibCheck
//   off) as ES modules (nodenext) and CommonJS (node16 .cts), with the pinned TypeScript and with what
//   `npm i -D typescript` installs today; a CommonJS project that never installs Middy (a queue worker
//   on makeIdempotent and sqsConsumer) type-checking the root entry that way and running it; a CDK app
//   over an imported journal with real esbuild bundling; idemkit/client bundled for browsers without the AWS
//   SDK or Node built-ins; the `idemkit` CLI bin and its --version; idemkit/testing driving a guarded
//   handler on DynamoDB Local under `node --test`.
// Then publint and @arethetypeswrong/cli on the tarball. Services listen on 127.0.0.1 only and
// are stopped before exit. Usage: node scripts/consumer-check/main.mjs [--keep] [--peers=newest|lowest]
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { startSqsLocal } from '../local/sqs-local.mjs';

const TOOLS = { typescript: '5.9.3', '@types/node': '20.19.43', jest: '30.5.2', esbuild: '0.28.2' };
const PUBLINT = 'publint@0.3.25';
const ATTW = '@arethetypeswrong/cli@0.18.5';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = join(root, 'scripts/consumer-check/fixtures');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const keep = process.argv.includes('--keep');
// `--peers=newest` (or `lowest`) checks one peer set only: the Node 22 and 24 runs of .ci/run check the
// newest (Middy 7 needs Node 22), the Node 20 run checks both.
const peerSets = process.argv.find((arg) => arg.startsWith('--peers='))?.slice('--peers='.length) ?? 'newest,lowest';
/** What `npm i -D typescript` installs today: its tsc has no JS API, so it checks the consumer's types only. */
const TYPESCRIPT_NEXT = 'typescript@7.0.2';
const work = mkdtempSync(join(tmpdir(), 'idemkit-consumer-'));
const results = [];

const services = await startServices();
try {
  const tarball = await step('pack', 'npm pack (runs prepare: the build)', () => pack());
  await step('package', `publint ${PUBLINT.split('@')[1]}`, () =>
    run('npx', ['--yes', PUBLINT, '--strict', tarball], { cwd: work }),
  );
  await step('package', `attw ${ATTW.split('@')[2]}`, () => run('npx', ['--yes', ATTW, tarball], { cwd: work }));
  const ranges = Object.entries(manifest.peerDependencies);
  for (const [label, peers] of [
    [
      'newest',
      Object.fromEntries(await Promise.all(ranges.map(async ([name, range]) => [name, await newestOf(name, range)]))),
    ],
    ['lowest', Object.fromEntries(ranges.map(([name, range]) => [name, lowestOf(range)]))],
  ].filter(([label]) => peerSets.split(',').includes(label))) {
    const project = join(work, label);
    await step(label, 'install the tarball and its peers', () => install(project, tarball, peers));
    const env = { ...process.env, ...services.env };
    await step(label, 'ESM import of every entry + round trips', () =>
      run('node', ['runtime.mjs'], { cwd: project, env }),
    );
    await step(label, 'CommonJS require of every entry + round trips', () =>
      run('node', ['runtime.cjs'], { cwd: project, env }),
    );
    await step(label, "Jest's default config (CommonJS)", () =>
      run('npx', ['jest', '--ci', 'jest/'], { cwd: project, env }),
    );
    await step(label, "TypeScript node16 (.mts, .cts), idemkit's declarations checked", () =>
      typecheckOwnDeclarations(project),
    );
    await step(label, `${TYPESCRIPT_NEXT} node16 (.mts, .cts), idemkit's declarations checked`, () =>
      typecheckOwnDeclarations(project, { tsc: ['--yes', '-p', TYPESCRIPT_NEXT, 'tsc'] }),
    );
    for (const [kind, tsconfig] of [
      ['nodenext (.mts, with Middy)', 'types/tsconfig.strict-esm.json'],
      ['node16 (.cts)', 'types/tsconfig.strict-cjs.json'],
    ]) {
      for (const [typescript, tsc] of [
        [`TypeScript ${TOOLS.typescript}`, ['tsc']],
        [TYPESCRIPT_NEXT, ['--yes', '-p', TYPESCRIPT_NEXT, 'tsc']],
      ]) {
        await step(label, `${typescript} strict ${kind}, exactOptionalPropertyTypes, skipLibCheck off`, () =>
          typecheckOwnDeclarations(project, { tsc, tsconfig }),
        );
      }
    }
    await step(label, 'TypeScript node16 (.mts, .cts), idemkit/cdk', () =>
      run('npx', ['tsc', '-p', 'types/tsconfig.node16-cdk.json'], { cwd: project }),
    );
    await step(label, 'TypeScript bundler', () =>
      run('npx', ['tsc', '-p', 'types/tsconfig.bundler.json'], { cwd: project }),
    );
    await step(label, 'CDK app over an imported journal (esbuild bundles)', () =>
      run('node', ['cdk/app.mjs'], { cwd: project, env }),
    );
    await step(label, 'idemkit/client bundled for browsers', () => browserBundle(project));
    await step(label, 'npx idemkit --version', () =>
      run('npx', ['idemkit', '--version'], {
        cwd: project,
        env,
        expectOutput: new RegExp(`^${manifest.version.replace(/\./g, '\\.')}$`, 'm'),
      }),
    );
    await step(label, 'idemkit/testing: node --test on DynamoDB Local', () =>
      run('node', ['--test', 'testing/handler.test.mjs'], { cwd: project, env }),
    );
    const worker = await step(
      label,
      'a CommonJS project without Middy: install the tarball and the DynamoDB peers',
      () => installWithoutMiddy(label, tarball, peers),
    );
    if (worker) {
      for (const [typescript, tsc, args] of [
        [`TypeScript ${TOOLS.typescript}`, ['tsc'], []],
        [TYPESCRIPT_NEXT, ['--yes', '-p', TYPESCRIPT_NEXT, 'tsc'], ['--noEmit']],
      ]) {
        await step(label, `without Middy: ${typescript} strict, the root entry's declarations checked`, () =>
          typecheckOwnDeclarations(worker, { tsc, tsconfig: 'tsconfig.json', args }),
        );
      }
      await step(label, 'without Middy: require() runs makeIdempotent and sqsConsumer on DynamoDB Local', () =>
        run('node', ['worker.js'], { cwd: worker, env, expectOutput: /"charges":1,"handled":1/ }),
      );
    }
    await step(label, 'idemkit CLI bin', () =>
      run('npx', ['idemkit', '--table', 'no-such-table', '--endpoint', services.env.CHECK_DYNAMODB_ENDPOINT, 'stuck'], {
        cwd: project,
        env,
        expectCode: 1,
        expectOutput: /Table no-such-table does not exist/,
      }),
    );
  }
} finally {
  await services.stop();
  if (!keep) rmSync(work, { recursive: true, force: true });
}

const failed = results.filter((result) => !result.ok);
console.log(
  `\nconsumer check: ${results.length - failed.length}/${results.length} held${keep ? ` (kept ${work})` : ''}`,
);
for (const result of results) {
  console.log(
    `${result.ok ? 'ok  ' : 'FAIL'} ${result.group.padEnd(7)} ${result.name} (${(result.ms / 1000).toFixed(1)} s)${result.detail ? `: ${result.detail}` : ''}`,
  );
}
process.exit(failed.length === 0 ? 0 : 1);

async function step(group, name, action) {
  const started = Date.now();
  try {
    const value = await action();
    results.push({
      group,
      name,
      ok: true,
      ms: Date.now() - started,
      detail: typeof value === 'string' && value.length < 400 ? value : undefined,
    });
    return value;
  } catch (error) {
    results.push({ group, name, ok: false, ms: Date.now() - started });
    console.error(`\n--- ${group}: ${name} failed\n${error.message}`);
    if (group === 'pack') throw error;
    return undefined;
  }
}

async function pack() {
  const out = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root });
  const [{ filename }] = JSON.parse(out.slice(out.indexOf('[')));
  return join(work, filename);
}

/**
 * The newest published version the range allows, whatever its `engines` say: npm itself would
 * pick the newest one whose `engines` match this Node (Middy 7 declares Node 22), and the range
 * claims the newest.
 */
async function newestOf(name, range) {
  const out = await run('npm', ['view', `${name}@${range}`, 'version', '--json'], { cwd: work });
  return [JSON.parse(out)].flat().sort(byVersion).at(-1);
}

/** The smallest version any branch of the range allows. */
function lowestOf(range) {
  return range
    .split('||')
    .map((part) => part.trim().replace(/^[\^~]|^>=\s*/, ''))
    .sort(byVersion)[0];
}

function byVersion(a, b) {
  return a.localeCompare(b, 'en', { numeric: true });
}

async function install(project, tarball, peers) {
  mkdirSync(project, { recursive: true });
  const withoutMiddy = join(fixtures, 'without-middy');
  cpSync(fixtures, project, { recursive: true, filter: (source) => !source.startsWith(withoutMiddy) });
  const types = join(project, 'types');
  for (const [from, copies] of [
    ['usage.ts', ['usage.mts', 'usage.cts']],
    ['middy.ts', ['middy.mts']],
    ['cdk.ts', ['cdk.mts', 'cdk.cts']],
  ]) {
    for (const copy of copies) cpSync(join(types, from), join(types, copy));
  }
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'idemkit-consumer', private: true, version: '0.0.0' }, null, 2)}\n`,
  );
  const specs = [
    tarball,
    ...Object.entries(peers).map(([name, version]) => `${name}@${version}`),
    ...Object.entries(TOOLS).map(([name, version]) => `${name}@${version}`),
  ];
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: project });
  const installed = Object.keys(peers).map(
    (name) =>
      `${name}@${JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')).version}`,
  );
  return installed.join(' ');
}

/**
 * A project of its own, outside the main one (whose node_modules holds Middy), with a CommonJS package.json:
 * the tarball, the three DynamoDB peers and TypeScript, nothing else. Fails if npm installed Middy anyway.
 */
async function installWithoutMiddy(label, tarball, peers) {
  const project = join(work, `${label}-without-middy`);
  mkdirSync(project, { recursive: true });
  cpSync(join(fixtures, 'without-middy'), project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'idemkit-worker', private: true, version: '0.0.0', type: 'commonjs' }, null, 2)}\n`,
  );
  const dynamo = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb'];
  const tools = ['typescript', '@types/node'];
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
      ...dynamo.map((name) => `${name}@${peers[name]}`),
      ...tools.map((name) => `${name}@${TOOLS[name]}`),
    ],
    { cwd: project },
  );
  if (existsSync(join(project, 'node_modules/@middy/core'))) throw new Error('npm installed @middy/core');
  return project;
}

/**
 * tsc with skipLibCheck off, failing on errors in the fixtures or in idemkit's declarations only:
 * another package's declarations are its own affair (Middy 7's import a package it lists as optional).
 */
async function typecheckOwnDeclarations(
  project,
  { tsc = ['tsc'], tsconfig = 'types/tsconfig.node16.json', args = [] } = {},
) {
  const out = await run('npx', [...tsc, '-p', tsconfig, ...args], { cwd: project, expectCode: null });
  const errors = out.split('\n').filter((line) => line.includes(': error TS'));
  const ours = errors.filter((line) => !/^node_modules\/(?!idemkit\/)/.test(line));
  if (ours.length > 0) throw new Error(ours.join('\n'));
  return errors.length > 0
    ? `ignored in other packages' declarations: ${errors.map((line) => line.split('(')[0]).join(', ')}`
    : '';
}

async function browserBundle(project) {
  const entry = join(project, 'browser-entry.mjs');
  writeFileSync(
    entry,
    "import { idempotentFetch, newIdempotencyKey, retry } from 'idemkit/client';\nglobalThis.idemkit = { idempotentFetch, newIdempotencyKey, retry };\n",
  );
  const { build } = await import(join(project, 'node_modules/esbuild/lib/main.js'));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const offending = inputs.filter((input) => /@aws-sdk|@smithy|@aws-lambda-powertools|^node:/.test(input));
  if (offending.length > 0) throw new Error(`idemkit/client pulls in ${offending.join(', ')}`);
  return `${inputs.length} modules, ${result.outputFiles[0].contents.length} bytes`;
}

async function startServices() {
  const { startDynamoDBLocal } = await tsImport('../../src/testing/index.ts', import.meta.url);
  const [dynamo, sqs] = await Promise.all([startDynamoDBLocal(), startSqsLocal()]);
  // A stand-in for EventBridge PutEvents: accepts every entry, as the service answers.
  const eventBridge = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const entries = JSON.parse(body || '{}').Entries ?? [];
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({ FailedEntryCount: 0, Entries: entries.map((_, index) => ({ EventId: `event-${index}` })) }),
      );
    });
  });
  await new Promise((done) => eventBridge.listen(0, '127.0.0.1', done));
  return {
    env: {
      CHECK_DYNAMODB_ENDPOINT: dynamo.endpoint,
      CHECK_SQS_ENDPOINT: sqs.endpoint,
      CHECK_EVENTBRIDGE_ENDPOINT: `http://127.0.0.1:${eventBridge.address().port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      CDK_DISABLE_VERSION_CHECK: '1',
    },
    async stop() {
      await Promise.allSettled([dynamo.stop(), sqs.stop(), new Promise((done) => eventBridge.close(done))]);
    },
  };
}

/** Runs a command; rejects with its output unless it exits with `expectCode` (0; null: any) and matches `expectOutput`. */
function run(command, args, { cwd, env = process.env, expectCode = 0, expectOutput } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const matched = expectOutput ? expectOutput.test(output) : true;
      if ((expectCode === null || code === expectCode) && matched) resolveRun(output);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')} exited ${code}${matched ? '' : ` without ${expectOutput}`}\n${output.slice(-6000)}`,
          ),
        );
    });
  });
}
