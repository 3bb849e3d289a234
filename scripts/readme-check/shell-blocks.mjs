// The shell blocks of the README and the guides, and what each needs: what `npm run check:readme`
// runs, and what it leaves to an AWS account, to Docker or to .ci/run. Pure: reads text, runs nothing.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A block's first line says where it runs when it does not run in a clone of this repository;
 * blocks that `npm run check:readme` cannot run say why, visibly, in the same place.
 */
const FIRST_LINE_MARKERS = [
  { pattern: /^# needs an AWS account\b/, kind: 'aws-account' },
  { pattern: /^# needs Docker\b/, kind: 'docker' },
  { pattern: /^# in your project\b/, kind: 'project' },
];

/** On the line before a fence: the block's npm scripts are run by `.ci/run`, which has the time for them. */
const CI_MARKER = '<!-- readme-check: .ci/run runs these -->';

/** The README, then every guide of the documentation site, in a stable order. */
export function documentsOf(root) {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file) => join('docs', file)),
  ];
}

/**
 * A file name a code block gives on its first line (`// handler.ts`, `// test/payments.test.ts`): a
 * relative path inside the project, never above it.
 */
const NAMED_FILE = /^\/\/ ((?:[\w-][\w.-]*\/)*[\w-][\w.-]*\.[cm]?[jt]s)\s*$/;

/**
 * Every fenced block of a markdown text: shell blocks with their kind (`clone`, `project`,
 * `aws-account`, `docker`, `ci`); TypeScript and JavaScript blocks that name their file on their
 * first line (`// handler.ts`, `// jest.config.js`), which a project block then compiles or runs;
 * and the other TypeScript blocks, samples to compile.
 */
export function blocksOf(markdown) {
  const lines = markdown.split('\n');
  const shell = [];
  const files = [];
  const samples = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(\w*)\s*$/.exec(lines[index]);
    if (!fence) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    const body = lines.slice(index + 1, end);
    const line = index + 2;
    if (['sh', 'bash', 'shell', 'console'].includes(fence[1])) {
      const marker = FIRST_LINE_MARKERS.find(({ pattern }) => pattern.test(body[0] ?? ''));
      const kind = lines[index - 1]?.trim() === CI_MARKER ? 'ci' : (marker?.kind ?? 'clone');
      shell.push({ line, kind, code: body.join('\n') });
    } else if (['ts', 'typescript', 'js', 'javascript'].includes(fence[1])) {
      const named = NAMED_FILE.exec(body[0] ?? '');
      if (named) files.push({ line, name: named[1], code: body.join('\n') });
      else if (['ts', 'typescript'].includes(fence[1])) samples.push({ line, code: body.join('\n') });
    }
    index = end;
  }
  return { shell, files, samples };
}

/** The npm commands a block runs (`npm ci`, `npm test`, `npm start`, `npm run <script>`), each once. */
export function npmCommandsOf(code) {
  const commands = [...code.matchAll(/\bnpm (ci|test|start|run [\w:-]+)/g)].map((match) => `npm ${match[1]}`);
  return [...new Set(commands)];
}

/** The npm commands of a `ci` block that `.ci/run` does not run. */
export function missingFromCi(code, ciScript) {
  const ran = new Set(npmCommandsOf(ciScript));
  return npmCommandsOf(code).filter((command) => !ran.has(command));
}

/**
 * A block with the values of its placeholder assignments (`NAME=/path/to/...` at the start of a
 * line) replaced by the check's own, for the names in `values`; other lines as written.
 */
export function withPlaceholders(code, values) {
  return code
    .split('\n')
    .map((line) => {
      const assignment = /^(export )?([A-Z][A-Z0-9_]*)=/.exec(line);
      if (!assignment || !(assignment[2] in values)) return line;
      return `${assignment[1] ?? ''}${assignment[2]}=${shellQuoted(values[assignment[2]])}   # set by the README check`;
    })
    .join('\n');
}

function shellQuoted(value) {
  return `'${String(value).replace(/'/g, `'\\''`)}'`;
}

/**
 * The HTTP statuses a block's comments promise, in order: a `curl -i` or a local invoke whose
 * trailing comment starts with a status (`# 201, new`, `# 422 idempotency-key-reused`).
 */
export function expectedStatusesOf(code) {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((command) => /^\s*curl .*-\w*i\b|local-invoke\.ts /.test(command))
    .map((command) => /#\s*(\d{3})\b/.exec(command)?.[1])
    .filter((status) => status !== undefined)
    .map(Number);
}

/** The statuses a session printed, in order: curl's status lines and the local invoke's `"statusCode"`. */
export function observedStatusesOf(output) {
  return [...output.matchAll(/^HTTP\/[\d.]+ (\d{3})\b|^\s*"statusCode": (\d{3})\b/gm)].map((match) =>
    Number(match[1] ?? match[2]),
  );
}
