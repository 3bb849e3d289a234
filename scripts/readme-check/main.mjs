// README check: runs the shell blocks of the README and the guides as a reader would, on a fresh clone.
//   - clones this repository's HEAD (git clone of the working copy: no network); its node_modules is
//     this checkout's own, linked (same lockfile: what `npm ci` would install, without a second minute of it);
//   - runs each document's blocks in one bash session, in order: in the clone, or, for blocks that
//     start with `# in your project`, in one new project (`npm init -y`, with whatever Node, npm and
//     TypeScript this machine has and the registry gives today) where the README's install lines
//     install the package from the clone's git URL and packed; a TypeScript or JavaScript block that
//     names its file (`// handler.ts`, `// jest.config.js`) is saved there just before its document's
//     blocks run, so the Quick start compiles and the testing guide's Jest set-up runs as written.
//     Then every other TypeScript sample of the README and the testing guide is compiled there with
//     the project's own tsconfig.json, and handler.js is loaded, without IDEMKIT_TABLE_NAME too. The
//     clone's sessions and the project's run side by side;
//   - leaves blocks that need an AWS account or Docker (marked so on their first line) and checks
//     that the npm scripts of blocks marked `<!-- readme-check: .ci/run runs these -->` are in .ci/run;
//   - fails when a block fails, or when the blocks changed a tracked file of the clone.
// `--newcomer` runs the new project's path only (no clone sessions, and the git URL install, minutes of
// building, is left to the full run): what .ci/run runs under Node 22 and 24, where npm installs Middy 7.
// Servers the blocks start listen on 127.0.0.1 and are stopped by PID; nothing but npm reaches the network.
// Usage: node scripts/readme-check/main.mjs [--keep] [--newcomer]
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import {
  blocksOf,
  documentsOf,
  expectedStatusesOf,
  missingFromCi,
  observedStatusesOf,
  withPlaceholders,
} from './shell-blocks.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const keep = process.argv.includes('--keep');
/** The new project's path only: the README and the guides as a newcomer on this Node follows them. */
const newcomer = process.argv.includes('--newcomer');
/** Documents whose every TypeScript sample is compiled in the new project: the README and the testing guide. */
const SAMPLE_DOCUMENTS = ['README.md', 'docs/testing-your-handlers.md'];
/** Bounds one document's session: an install from a git URL alone takes a minute or two. */
const SESSION_TIMEOUT_MS = 8 * 60_000;
/** Ports the guides' local set-ups name: a block cannot listen where something else already does. */
const FIXED_PORTS = [3000, 4566, 8000];
const work = mkdtempSync(join(tmpdir(), 'idemkit-readme-'));
const clone = join(work, 'idemkit');
const results = [];
const started = Date.now();

const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' });
if (dirty) console.warn(`readme check: uncommitted changes are not checked (it clones HEAD):\n${dirty}`);
await step('setup', 'git clone of HEAD, its node_modules linked', async () => {
  if (!existsSync(join(root, 'node_modules/.package-lock.json'))) throw new Error('run npm ci in this checkout first');
  await run('git', ['clone', '--quiet', root, clone], { cwd: work });
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim();
});
const busy = await busyPorts(FIXED_PORTS);
if (busy.length > 0) fail(`ports ${busy.join(', ')} are in use; the guides' local set-ups listen there`);

const { startDynamoDBLocal, createJournalTable } = await tsImport('../../src/testing/index.ts', import.meta.url);
const dynamo = await startDynamoDBLocal();
try {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  /** What a reader puts in place of the blocks' placeholders. */
  const placeholders = {
    IDEMKIT_CLONE: clone,
    IDEMKIT_GIT_URL: `git+file://${clone}`,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    JOURNAL_TABLE: await createJournalTable(client),
  };
  const ciScript = readFileSync(join(root, '.ci/run'), 'utf8');
  const ranBefore = new Map();
  const project = join(work, 'project');
  const chains = { clone: [], project: [] };
  const samples = [];
  for (const document of documentsOf(clone)) {
    const blocks = blocksOf(readFileSync(join(clone, document), 'utf8'));
    const sessions = { clone: [], project: [] };
    if (SAMPLE_DOCUMENTS.includes(document)) {
      samples.push(...blocks.samples.map((sample) => ({ ...sample, where: `${document}:${sample.line}` })));
    }
    for (const block of blocks.shell) {
      const where = `${document}:${block.line}`;
      if (newcomer && block.kind !== 'project') {
        results.push({ where, outcome: 'left', detail: 'not a new project block (--newcomer)' });
      } else if (newcomer && /^IDEMKIT_GIT_URL=/m.test(block.code)) {
        results.push({ where, outcome: 'left', detail: 'git URL install: the full run builds it (--newcomer)' });
      } else if (block.kind === 'aws-account' || block.kind === 'docker') {
        results.push({
          where,
          outcome: 'left',
          detail: `needs ${block.kind === 'docker' ? 'Docker' : 'an AWS account'}`,
        });
      } else if (block.kind === 'ci') {
        const missing = missingFromCi(block.code, ciScript);
        results.push({
          where,
          outcome: missing.length === 0 ? 'in .ci/run' : 'FAIL',
          detail: missing.length === 0 ? undefined : `.ci/run does not run ${missing.join(', ')}`,
        });
      } else if (ranBefore.has(block.code)) {
        results.push({ where, outcome: 'same', detail: `as ${ranBefore.get(block.code)}` });
      } else {
        ranBefore.set(block.code, where);
        sessions[block.kind].push({ ...block, where });
      }
    }
    for (const kind of ['clone', 'project']) {
      if (sessions[kind].length > 0)
        chains[kind].push({ document, blocks: sessions[kind], files: kind === 'project' ? blocks.files : [] });
    }
  }
  // The clone's blocks and the project's share nothing but the machine: run the two chains side by side.
  await Promise.all([
    (async () => {
      for (const { document, blocks } of chains.clone) await session(document, 'clone', clone, blocks, placeholders);
    })(),
    (async () => {
      mkdirSync(project, { recursive: true });
      await run('npm', ['init', '-y'], { cwd: project });
      let ok = true;
      const saved = [];
      for (const { document, blocks, files } of chains.project) {
        // A reader saves a document's files when they reach it: the Quick start's tsc never sees the Jest guide's test.
        for (const file of files) {
          mkdirSync(dirname(join(project, file.name)), { recursive: true });
          writeFileSync(join(project, file.name), `${file.code}\n`);
          saved.push(file.name);
        }
        ok = (await session(document, 'project', project, blocks, placeholders)) && ok;
      }
      if (ok) await newProjectChecks(project, saved, samples);
    })(),
  ]);
  await step('clone', 'no tracked file changed by the blocks', async () => {
    const changed = await run('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: clone });
    if (changed.trim()) throw new Error(changed);
  });
} finally {
  await dynamo.stop();
  if (!keep) rmSync(work, { recursive: true, force: true });
}

const failed = results.filter((result) => result.outcome === 'FAIL');
console.log(
  `\nREADME check: ${results.filter((r) => r.outcome === 'ran').length} blocks ran, ${failed.length} failed, ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s${keep ? ` (kept ${work})` : ''}`,
);
for (const result of results) {
  console.log(`${result.outcome.padEnd(10)} ${result.where}${result.detail ? `: ${result.detail}` : ''}`);
}
process.exit(failed.length === 0 ? 0 : 1);

/**
 * Runs one document's blocks of one kind in a single bash session, so what one block sets (a
 * variable, a server's PID) the next one uses, as in a reader's terminal. Background jobs a
 * failing block leaves are stopped by their PIDs when the session exits.
 */
async function session(document, kind, cwd, blocks, placeholders) {
  const script = join(work, `${document.replace(/[/.]/g, '-')}-${kind}.sh`);
  writeFileSync(
    script,
    [
      'set -eo pipefail',
      'trap \'for pid in $(jobs -p); do kill "$pid" 2>/dev/null || true; done\' EXIT',
      ...blocks.flatMap((block) => [
        `echo ">>> ${block.where} $(date +%s%3N)" >&2`,
        withPlaceholders(block.code, placeholders),
      ]),
      'echo ">>> end $(date +%s%3N)" >&2',
      '',
    ].join('\n'),
  );
  try {
    const output = await run('bash', [script], { cwd, timeoutMs: SESSION_TIMEOUT_MS });
    // Exit codes say a command ran; the statuses its comment promises say it answered as written.
    const expected = blocks.flatMap((block) => expectedStatusesOf(block.code));
    const observed = observedStatusesOf(output);
    if (JSON.stringify(expected) !== JSON.stringify(observed)) {
      throw Object.assign(new Error(`statuses ${observed.join(', ')}; the comments promise ${expected.join(', ')}`), {
        output: `${output}\n>>> ${blocks[0].where}`,
      });
    }
    // A server the blocks started in the background writes to the same streams: a marker may share its line with
    // that output, so it is found anywhere, by its epoch-ms stamp, not as a line of its own.
    const marks = [...output.matchAll(/>>> (\S+) (\d{13})/g)].map((match) => [match[1], Number(match[2])]);
    for (const block of blocks) {
      const at = marks.findIndex(([where]) => where === block.where);
      const next = marks[at + 1];
      const seconds = at >= 0 && next ? ((next[1] - marks[at][1]) / 1000).toFixed(1) : '?';
      const statuses = expectedStatusesOf(block.code);
      results.push({
        where: block.where,
        outcome: 'ran',
        detail: `${kind}, ${seconds} s${statuses.length > 0 ? `, answered ${statuses.join(', ')}` : ''}`,
      });
    }
    return true;
  } catch (error) {
    const failedAt = [...(error.output ?? '').matchAll(/>>> (\S+)/g)].at(-1)?.[1];
    // A session stopped before its first marker (a timeout) failed at its first block.
    const index = Math.max(
      0,
      blocks.findIndex((b) => b.where === failedAt),
    );
    for (const block of blocks) {
      const at = blocks.indexOf(block);
      const outcome = at < index ? 'ran' : at === index ? 'FAIL' : 'not run';
      results.push({ where: block.where, outcome, detail: at === index ? kind : undefined });
    }
    console.error(`\n--- ${document} (${kind}) failed at ${failedAt}\n${error.message}`);
    return false;
  }
}

/**
 * What the blocks leave in the new project, checked as a newcomer would meet it: the toolchain it got,
 * every TypeScript sample of the README and the testing guide compiled with the project's own
 * tsconfig.json (the one `tsc --init` wrote), and `handler.js` loaded as the ES module it is, with and
 * without IDEMKIT_TABLE_NAME (a test imports a handler module before it sets the variable).
 */
async function newProjectChecks(project, saved, samples) {
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
  await step('project', 'the toolchain the project got', async () => {
    const versions = Object.fromEntries(
      ['typescript', '@middy/core', 'jest'].map((name) => [name, installedVersion(project, name)]),
    );
    if (manifest.type !== 'module') throw new Error(`the blocks left "type": ${JSON.stringify(manifest.type)}`);
    return `Node ${process.version}, ${Object.entries(versions)
      .map(([name, version]) => `${name} ${version ?? '(absent)'}`)
      .join(', ')}, "type": "module"`;
  });
  const typescriptFiles = saved.filter((name) => name.endsWith('.ts'));
  await step(
    'project',
    `${samples.length} samples (${[...new Set(samples.map((s) => s.where.split(':')[0]))].join(', ')}) and ${typescriptFiles.join(', ')} compiled with the project's tsconfig.json`,
    async () => {
      const folder = join(project, 'readme-samples');
      mkdirSync(folder, { recursive: true });
      const names = samples.map((sample) => {
        const name = `${sample.where.replace(/[/.:]/g, '-')}.ts`;
        writeFileSync(join(folder, name), `${sample.code}\n`);
        return name;
      });
      writeFileSync(
        join(folder, 'tsconfig.json'),
        `${JSON.stringify(
          {
            extends: '../tsconfig.json',
            compilerOptions: { noEmit: true },
            files: [...names, ...typescriptFiles.map((name) => `../${name}`)],
          },
          null,
          2,
        )}\n`,
      );
      try {
        await run('npx', ['tsc', '-p', 'readme-samples/tsconfig.json'], { cwd: project });
      } catch (error) {
        const where = Object.fromEntries(names.map((name, index) => [name, samples[index].where]));
        throw new Error(error.message.replace(/readme-samples\/([\w.-]+\.ts)/g, (_, name) => where[name] ?? name));
      }
    },
  );
  const env = {
    ...process.env,
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  delete env.IDEMKIT_TABLE_NAME;
  const load = `const m = await import('./handler.js'); if (typeof m.handler !== 'function') process.exit(1);`;
  await step('project', 'handler.js loaded as an ES module, with IDEMKIT_TABLE_NAME and without', async () => {
    await run('node', ['--input-type=module', '-e', load], {
      cwd: project,
      env: { ...env, IDEMKIT_TABLE_NAME: 'readme-check-journal' },
    });
    await run('node', ['--input-type=module', '-e', load], { cwd: project, env });
  });
}

/** The version of a package installed in the project, or undefined. */
function installedVersion(project, name) {
  const file = join(project, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
}

async function step(where, name, action) {
  const startedAt = Date.now();
  try {
    const value = await action();
    results.push({
      where,
      outcome: 'ran',
      detail: `${name} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)${typeof value === 'string' && value ? `: ${value}` : ''}`,
    });
  } catch (error) {
    results.push({ where, outcome: 'FAIL', detail: name });
    console.error(`\n--- ${where}: ${name} failed\n${error.message}`);
    if (where === 'setup') fail('set-up failed');
  }
}

function fail(message) {
  console.error(`README check: ${message}`);
  if (!keep) rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

/** The ports of `ports` something on this machine already listens on (127.0.0.1). */
async function busyPorts(ports) {
  const busy = [];
  for (const port of ports) {
    const free = await new Promise((done) => {
      const server = createServer();
      server.once('error', () => done(false));
      server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
    });
    if (!free) busy.push(port);
  }
  return busy;
}

/** Runs a command; rejects with its output unless it exits 0 within `timeoutMs`; its whole process group is stopped on a timeout. */
function run(command, args, { cwd, env = process.env, timeoutMs = SESSION_TIMEOUT_MS } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n(stopped after ${timeoutMs / 1000} s)`;
      process.kill(-child.pid, 'SIGTERM');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolveRun(output);
      else
        reject(
          Object.assign(new Error(`${command} ${args.join(' ')} exited ${code}\n${output.slice(-6000)}`), { output }),
        );
    });
  });
}
