import { LIBRARIES, type LibraryName } from './harness/contenders.js';
import { median, round } from './harness/stats.js';
import { SITUATIONS, type Observation, type Situation } from './scenarios/calls.js';
import { BUNDLE_VARIANTS, type BundleVariant } from './scenarios/bundle.js';
import { FINGERPRINT_PATHS } from './scenarios/fingerprint.js';
import type { BenchResults } from './suite.js';
import { writesSection, writesTargets } from './report-writes.js';

/** One target of the comparison and whether this run met it. */
export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

const TITLE: Record<LibraryName, string> = { idemkit: 'idemkit', powertools: 'Powertools' };
/** The bundle variant the size and cold-import targets are judged on. */
const HEADLINE_VARIANT: BundleVariant = 'bundled';

const x = (ratio: number) => `${round(ratio, 2).toFixed(2)}×`;
const ms = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value >= 1 ? value.toFixed(2) : value.toFixed(3);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Powertools' payload hashes in one new-key attempt, as counted in the calls scenario. */
export function powertoolsHashesPerAttempt(results: BenchResults): number {
  return median(results.calls.newKey.powertools.observations.map((o) => o.payloadHashes ?? 0));
}

/** Checks the run against the targets set for idemkit, relative to the reference library. */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const { latency, throughput, sameKey, calls, bundle } = results;
  const situations = Object.keys(SITUATIONS) as Situation[];
  const moreCalls = situations.filter((s) => calls[s].idemkit.medianCalls > calls[s].powertools.medianCalls);
  const primary = bundle.variants[HEADLINE_VARIANT];
  return [
    {
      target: 'new-key latency ≤ 0.9× the reference (median)',
      measured: x(latency.idemkitVsPowertools.newKey.median),
      met: latency.idemkitVsPowertools.newKey.median <= 0.9,
    },
    {
      target: 'new-key latency ≤ 1.0× the reference (median; the nearer step towards 0.9×)',
      measured: x(latency.idemkitVsPowertools.newKey.median),
      met: latency.idemkitVsPowertools.newKey.median <= 1.0,
    },
    {
      target: 'replay latency ≤ 1.0× the reference (median)',
      measured: x(latency.idemkitVsPowertools.replay.median),
      met: latency.idemkitVsPowertools.replay.median <= 1.0,
    },
    {
      target: `throughput ≥ 1.2× the reference (${throughput.plan.concurrency} concurrent distinct keys)`,
      measured: x(throughput.idemkitVsPowertools),
      met: throughput.idemkitVsPowertools >= 1.2,
    },
    {
      target: `throughput ≥ 1.0× the reference (${throughput.plan.concurrency} concurrent distinct keys; the nearer step towards 1.2×)`,
      measured: x(throughput.idemkitVsPowertools),
      met: throughput.idemkitVsPowertools >= 1.0,
    },
    {
      target: 'DynamoDB calls per attempt no more than the reference, in every situation',
      measured:
        moreCalls.length === 0
          ? `≤ in ${situations.length}/${situations.length} situations`
          : `more in: ${moreCalls.map((s) => SITUATIONS[s]).join(', ')}`,
      met: moreCalls.length === 0,
    },
    {
      target: `exactly one execution in every same-key trial (${sameKey.plan.callers} callers, ${sameKey.plan.trials} trials)`,
      measured: `${sameKey.exactlyOnceTrials.idemkit}/${sameKey.executionsPerTrial.idemkit.length} trials`,
      met: sameKey.exactlyOnceTrials.idemkit === sameKey.executionsPerTrial.idemkit.length,
    },
    {
      target: `smaller bundle (${BUNDLE_VARIANTS[HEADLINE_VARIANT].title})`,
      measured: `${kib(primary.idemkit.bytes)} vs ${kib(primary.powertools.bytes)} (${x(primary.idemkit.bytes / primary.powertools.bytes)})`,
      met: primary.idemkit.bytes < primary.powertools.bytes,
    },
    {
      target: `faster cold import (${BUNDLE_VARIANTS[HEADLINE_VARIANT].title}, median)`,
      measured: `${ms(primary.idemkit.coldImportMs)} ms vs ${ms(primary.powertools.coldImportMs)} ms (${x(primary.idemkit.coldImportMs / primary.powertools.coldImportMs)})`,
      met: primary.idemkit.coldImportMs < primary.powertools.coldImportMs,
    },
    ...writesTargets(results.writes),
  ];
}

function typical(observations: readonly Observation[]): Observation {
  const calls = median(observations.map((o) => o.calls));
  return observations.find((o) => o.calls === calls) ?? observations[0];
}

function callsCell(observations: readonly Observation[]): string {
  const counts = observations.map((o) => o.calls);
  const spread =
    Math.min(...counts) === Math.max(...counts)
      ? String(counts[0])
      : `${median(counts)} (${Math.min(...counts)}–${Math.max(...counts)})`;
  const commands = Object.entries(typical(observations).commands).map(([name, n]) => (n > 1 ? `${n}× ${name}` : name));
  return commands.length === 0 ? spread : `${spread}: ${commands.join(' + ')}`;
}

function answerCell(observations: readonly Observation[]): string {
  const seen = typical(observations);
  const answer = /^\d+$/.test(seen.answer) ? seen.answer : `throws ${seen.answer}`;
  return seen.executions > 0 ? `${answer}, handler ran` : answer;
}

function callsSection(r: BenchResults): string[] {
  const lines = [
    '## DynamoDB calls per attempt',
    '',
    `Counted by a middleware on each library's own \`DynamoDBClient\`; median of ${r.plan.callRepetitions} repetitions per library.`,
    '',
    '| situation | idemkit calls | idemkit answer | Powertools calls | Powertools answer |',
    '|---|---|---|---|---|',
  ];
  for (const situation of Object.keys(SITUATIONS) as Situation[]) {
    const row = r.calls[situation];
    lines.push(
      `| ${SITUATIONS[situation]} | ${callsCell(row.idemkit.observations)} | ${answerCell(row.idemkit.observations)} | ${callsCell(row.powertools.observations)} | ${answerCell(row.powertools.observations)} |`,
    );
  }
  const rerun = r.calls.replayAfterMismatch.powertools.observations.filter((o) => o.executions > 0).length;
  const dupDeletes = r.calls.inProgress.powertools.observations.filter((o) => (o.commands.DeleteItem ?? 0) > 0).length;
  lines.push('');
  lines.push(
    `A Powertools error answer is an exception out of the handler (API Gateway answers 500 unless another middleware maps it). ` +
      `In ${dupDeletes}/${r.calls.inProgress.powertools.observations.length} repetitions the rejected in-progress duplicate deleted the running attempt's record, ` +
      `and in ${rerun}/${r.calls.replayAfterMismatch.powertools.observations.length} the original request ran its handler again after a rejected mismatch: ` +
      "the reference middleware's `onError` deletes the record even when its own `before` rejected the request " +
      '([powertools-lambda-typescript#5675](https://github.com/aws-powertools/powertools-lambda-typescript/issues/5675), fixed by PR #5676 after the measured version).',
  );
  lines.push(
    `Payload hashes per new-key attempt: idemkit 1 (one fingerprint in \`before\`), Powertools ${powertoolsHashesPerAttempt(r)} (counted: \`saveInProgress\` and \`saveSuccess\` each hash the payload).`,
  );
  return lines;
}

function latencySection(r: BenchResults): string[] {
  const { latency } = r;
  const row = (label: string, s: { median: number; p99: number; n: number }, vsMedian: string, vsP99: string) =>
    `| ${label} | ${ms(s.median)} | ${ms(s.p99)} | ${vsMedian} | ${vsP99} | ${s.n} |`;
  const lines = [
    '## Latency per invocation',
    '',
    `Sequential invocations in a warm container, no local cache; ${latency.plan.rounds} measured rounds (after ${latency.plan.warmupRounds} warm-up rounds) of ${latency.plan.perRound} new keys then ${latency.plan.perRound} replays per library, ` +
      `with ${latency.plan.perRound} raw \`PutItem\`s of a small item on the same server in every round (order idemkit, PutItem, Powertools, reversed every other round). ` +
      'Times are milliseconds on a loopback DynamoDB Local; the ratios are what carries over.',
    '',
    '| invocation | median ms | p99 ms | median ÷ PutItem | p99 ÷ PutItem | n |',
    '|---|---|---|---|---|---|',
    row('raw `PutItem`', latency.putItem, '1.00×', '1.00×'),
  ];
  for (const kind of ['newKey', 'replay'] as const) {
    for (const library of LIBRARIES) {
      const k = latency.libraries[library][kind];
      lines.push(
        row(
          `${TITLE[library]}, ${kind === 'newKey' ? 'new key' : 'replay'}`,
          k.ms,
          x(k.medianVsPutItem),
          x(k.p99VsPutItem),
        ),
      );
    }
  }
  const head = latency.idemkitVsPowertools;
  const calls = (situation: Situation, library: LibraryName) => r.calls[situation][library].medianCalls;
  lines.push('');
  if (
    calls('newKey', 'idemkit') === calls('newKey', 'powertools') &&
    calls('replay', 'idemkit') === calls('replay', 'powertools')
  ) {
    lines.push(
      `Both libraries make the same sequential DynamoDB calls here (${calls('newKey', 'idemkit')} for a new key, ${calls('replay', 'idemkit')} for a replay), ` +
        'so a difference between them is the work each does around those round trips.',
    );
    lines.push('');
  }
  lines.push(
    `idemkit ÷ Powertools: new key ${x(head.newKey.median)} (median of per-round ratios), p99 ${x(head.newKey.p99)}; ` +
      `replay ${x(head.replay.median)}, p99 ${x(head.replay.p99)}.`,
  );
  return lines;
}

function throughputSection(r: BenchResults): string[] {
  const t = r.throughput;
  return [
    '## Throughput',
    '',
    `${t.plan.concurrency} concurrent callers, each its own warm container (middleware, journal and client), each request a new key; ` +
      `${t.plan.rounds} measured rounds of ${t.plan.roundMs / 1000} s per library, alternating.`,
    '',
    '| library | median requests/s | per round | non-201 answers |',
    '|---|---|---|---|',
    ...LIBRARIES.map(
      (l) =>
        `| ${TITLE[l]} | ${t.medianRps[l].toFixed(0)} | ${t.perRound[l].map((v) => v.toFixed(0)).join(', ')} | ${t.failures[l]} |`,
    ),
    '',
    `idemkit ÷ Powertools: ${x(t.idemkitVsPowertools)} (median of per-round ratios).`,
  ];
}

function sameKeySection(r: BenchResults): string[] {
  const s = r.sameKey;
  const answers = (l: LibraryName) =>
    Object.entries(s.answers[l])
      .sort((a, b) => b[1] - a[1])
      .map(([answer, n]) => `${answer} ×${n}`)
      .join(', ');
  return [
    `## Same key, ${s.plan.callers} concurrent callers`,
    '',
    `${s.plan.trials} trials per library, alternating. Each trial sends one new key with the same body from ${s.plan.callers} warm containers at once ` +
      `(a middleware, journal and client each, as separate Lambda containers would have); the payment effect takes ${s.plan.effectMs} ms and counts its executions.`,
    '',
    '| library | trials with exactly one execution | executions per trial (min / median / max) | answers over all trials |',
    '|---|---|---|---|',
    ...LIBRARIES.map((l) => {
      const e = s.executionsPerTrial[l];
      return `| ${TITLE[l]} | ${s.exactlyOnceTrials[l]}/${e.length} | ${Math.min(...e)} / ${median(e)} / ${Math.max(...e)} | ${answers(l)} |`;
    }),
    '',
    `Executions per trial: idemkit ${s.executionsPerTrial.idemkit.join(' ')}; Powertools ${s.executionsPerTrial.powertools.join(' ')}.`,
    ...LIBRARIES.filter((l) => s.exactlyOnceTrials[l] < s.executionsPerTrial[l].length).map(
      (l) =>
        `${TITLE[l]} ran the effect more than once in ${s.executionsPerTrial[l].length - s.exactlyOnceTrials[l]} trials` +
        (l === 'powertools'
          ? ': each rejected duplicate deletes the in-progress record (see the calls table), letting a later caller take the key again.'
          : '.'),
    ),
  ];
}

function fingerprintSection(r: BenchResults): string[] {
  const hashes = powertoolsHashesPerAttempt(r);
  const lines = [
    '## Fingerprint cost',
    '',
    'Milliseconds per operation (median of alternating rounds), in process, no DynamoDB call. The paths:',
    '',
    ...Object.values(FINGERPRINT_PATHS).map((text, i) => `${i + 1}. ${text}.`),
    '',
    `idemkit fingerprints once per attempt; Powertools hashes the payload ${hashes} times per new-key attempt (counted), so its per-attempt cost is ${hashes} × path 3.`,
    '',
    '| body | 1. idemkit middleware | 2. idemkit parse + hash | 3. Powertools `body` (one hash) | Powertools per attempt (×' +
      hashes +
      ') | 4. Powertools `powertools_json(body)` | idemkit ÷ Powertools per attempt |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const size of r.fingerprint.sizes) {
    const m = size.medianMsPerOp;
    const perAttempt = m.powertoolsBody * hashes;
    lines.push(
      `| ${size.label} (${size.actualBytes.toLocaleString('en-US')} B) | ${ms(m.idemkitMiddleware)} | ${ms(m.idemkitParseAndHash)} | ${ms(m.powertoolsBody)} | ${ms(perAttempt)} | ${ms(m.powertoolsJsonBody)} | ${x(m.idemkitMiddleware / perAttempt)} |`,
    );
  }
  lines.push('');
  lines.push(
    "Path 3 hashes the body's bytes as a string, so a re-serialized but equal JSON body (other key order or whitespace) is a mismatch there; " +
      'idemkit (paths 1–2) and path 4 compare by value, which costs a parse.',
  );
  return lines;
}

function bundleSection(r: BenchResults): string[] {
  const b = r.bundle;
  const lines = [
    '## Bundle size and cold import',
    '',
    `Each library guards the same \`POST /payments\` handler (\`bench/fixtures/*-handler.ts\`), bundled with esbuild ${b.esbuild}: platform node, format esm, target node20, minify, bundle, ` +
      'and the `createRequire` banner an ESM bundle of CommonJS dependencies needs. ' +
      `The targets are judged on the first variant (${BUNDLE_VARIANTS[HEADLINE_VARIANT].title}). ` +
      `Cold import: median of ${b.plan.coldImports} fresh \`node --input-type=module\` processes per bundle, alternating, timing \`await import(bundle)\` inside the process; "whole process" adds node's own start.`,
    '',
  ];
  for (const variant of Object.keys(BUNDLE_VARIANTS) as BundleVariant[]) {
    const p = b.variants[variant];
    lines.push(`### ${BUNDLE_VARIANTS[variant].title}${variant === HEADLINE_VARIANT ? ' (targets)' : ''}`);
    lines.push('');
    lines.push(
      `${BUNDLE_VARIANTS[variant].description[0].toUpperCase()}${BUNDLE_VARIANTS[variant].description.slice(1)}.`,
    );
    lines.push('');
    lines.push('| | idemkit | Powertools | idemkit ÷ Powertools |');
    lines.push('|---|---|---|---|');
    lines.push(
      `| minified | ${kib(p.idemkit.bytes)} | ${kib(p.powertools.bytes)} | ${x(p.idemkit.bytes / p.powertools.bytes)} |`,
    );
    lines.push(
      `| gzip -9 | ${kib(p.idemkit.gzipBytes)} | ${kib(p.powertools.gzipBytes)} | ${x(p.idemkit.gzipBytes / p.powertools.gzipBytes)} |`,
    );
    lines.push(
      `| cold import, median ms | ${ms(p.idemkit.coldImportMs)} | ${ms(p.powertools.coldImportMs)} | ${x(p.idemkit.coldImportMs / p.powertools.coldImportMs)} |`,
    );
    lines.push(
      `| whole process, median ms | ${ms(p.idemkit.coldProcessMs)} | ${ms(p.powertools.coldProcessMs)} | ${x(p.idemkit.coldProcessMs / p.powertools.coldProcessMs)} |`,
    );
    lines.push('');
    for (const library of LIBRARIES) {
      lines.push(
        `Largest parts of the ${TITLE[library]} bundle: ${p[library].topPackages.map((t) => `${t.name} ${kib(t.bytes)}`).join(', ')}.`,
      );
      if (p[library].externalImports.length > 0)
        lines.push(`It imports at load: ${p[library].externalImports.map((name) => `\`${name}\``).join(', ')}.`);
      lines.push('');
    }
  }
  return lines;
}

/** Renders RESULTS.md from one run's results. */
export function renderReport(r: BenchResults): string {
  const targets = checkTargets(r);
  const lines = [
    '# Benchmarks: idemkit and the Powertools idempotency utility',
    '',
    `Measured ${r.generatedAt.slice(0, 10)} by \`npx tsx bench/run.ts\` in ${(r.durationSeconds / 60).toFixed(1)} min; raw numbers in [results.json](results.json).`,
    '',
    `Machine: ${r.machine.cpu}, ${r.machine.cores} cores, ${r.machine.memoryGiB} GiB, ${r.machine.os}, Node ${r.machine.node}` +
      (r.machine.loadAverage
        ? `, load average ${r.machine.loadAverage.join(' / ')} (1 / 5 / 15 min) when the run began`
        : '') +
      '. ' +
      'The machine is shared and noisy and the server is DynamoDB Local on loopback: read the ratios, not the absolute times.',
    '',
    `Versions: ${Object.entries(r.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join('; ')}.`,
    '',
    '## Setup',
    '',
    "- One DynamoDB Local (in memory, 127.0.0.1) serves both libraries: idemkit's journal table (partition key `pk`) and Powertools' table (partition key `id`, default attribute names), fresh tables per scenario.",
    '- The same handler, `POST /payments` (parse the JSON body, take the payment, answer 201 with a `Location`), receives HTTP API (v2) events with an `Idempotency-Key` header and a JSON body; in the section "A handler that writes one item" it also writes one payment item.',
    '- idemkit: `middy(handler).use(httpIdempotency({ journal: new DynamoDBJournal({ tableName, client }), ttlSeconds: 86400 }))` with its defaults (scope from the JWT `sub` and the route, fingerprint of method, path, query and body).',
    "- Powertools: `makeHandlerIdempotent({ persistenceStore: new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: client }), config: new IdempotencyConfig({ eventKeyJmesPath: 'headers.\"idempotency-key\"', payloadValidationJmesPath: 'body', throwOnNoIdempotencyKey: true, expiresAfterSeconds: 86400 }), keyPrefix: 'create-payment' })`.",
    '- Local cache: idemkit `localCache: { maxItems: 1000 }`, Powertools `useLocalCache: true` (its default size, 1000), only in the local-cache row.',
    '- Every Lambda context reports 29 s remaining. Each library has its own `DynamoDBClient` (default retries and HTTP agent).',
    "- idemkit's per-attempt log line and EMF metrics are built but not printed (`POWERTOOLS_LOG_LEVEL=SILENT`, `POWERTOOLS_METRICS_DISABLED=true`): the reference writes none, and printing thousands of lines would measure the terminal.",
    '- Every timed scenario alternates the libraries round by round (AB, BA, AB, ...), so machine drift lands on both alike.',
    '',
    '## Targets',
    '',
    '| target | measured | met |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'met' : 'not met'} |`),
    '',
    ...callsSection(r),
    '',
    ...latencySection(r),
    '',
    ...throughputSection(r),
    '',
    ...sameKeySection(r),
    '',
    ...writesSection(r.writes),
    '',
    ...fingerprintSection(r),
    '',
    ...bundleSection(r),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
