import middy from '@middy/core';
import type fc from 'fast-check';
import {
  fingerprintOf,
  httpIdempotency,
  idempotencyOf,
  RecordStatus,
  type JournalRecord,
  type RecoveryDecision,
} from '../../../src/index.js';
import { KEY_COUNT, LEASE_MS, type AttemptPlan, type Schedule } from './schedule-model.js';
import { requestPk, type Journal } from '../../../src/entries/journal.js';

/** The journal under test and where its committed staged writes can be read back. */
export interface World {
  readonly journal: Journal;
  /** Table the handler stages its effect into (items `{ pk: key, sk: attemptId }`). */
  readonly effectsTable: string;
  /** Ids of the attempts whose staged effect for `key` was committed. */
  effectsOf(key: string): Promise<string[]>;
}

/** Builds a world whose journal reads the given clock; `runId` keeps runs apart on a shared table. */
export type WorldFactory = (clock: () => number, runId: string) => World;

type Answer = { statusCode: number; headers?: Record<string, string>; body: string };
type Stored = { statusCode: number; body: string };

/** The error a handler planned to throw. */
class PlannedFailure extends Error {}

interface Attempt {
  readonly id: string;
  readonly plan: AttemptPlan;
  readonly key: string;
  readonly stalls: boolean;
  state: 'running' | 'stalled' | 'crashed' | 'done';
  ranHandler: boolean;
  /** Virtual time its handler started: its lease runs until `LEASE_MS` later. */
  leaseFromEpochMs?: number;
  /** The record's `attempt` number this attempt's handler ran under. */
  recordAttempt?: number;
  resume?: () => void;
  /** Resolves when the attempt stalls in its handler or is answered. */
  parked: Promise<void>;
  /** Resolves `parked`. */
  park: () => void;
  /** Resolves when the attempt is answered (or threw). */
  settled: Promise<void>;
  answer?: Answer;
  error?: unknown;
  checked: boolean;
}

const PREFIX = 'urn:idemkit:problem:';
const REPLAYED = 'Idempotent-Replayed';
const RECOVERED: Answer = {
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: '{"recovered":true}',
};
const START_EPOCH_MS = Date.UTC(2030, 0, 1);

const bodyOf = (variant: number) => JSON.stringify({ amount: 100 + variant });
const storedFormOf = (answer: Answer): Stored => ({ statusCode: answer.statusCode, body: answer.body });
const same = (a: Stored | undefined, b: Stored | undefined) =>
  a !== undefined && b !== undefined && a.statusCode === b.statusCode && a.body === b.body;

function violation(message: string, details?: unknown): Error {
  return new Error(
    `Invariant violated: ${message}${details === undefined ? '' : `\n${JSON.stringify(details, null, 2)}`}`,
  );
}

function invariant(condition: unknown, message: string, details?: unknown): asserts condition {
  if (!condition) throw violation(message, details);
}

/** Every journal call waits for the scheduler to let it through, so concurrent attempts interleave in a random, replayable order. */
function scheduled(journal: Journal, scheduler: fc.Scheduler): Journal {
  return new Proxy(journal, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const pk = typeof args[0] === 'string' ? args[0] : (args[0] as { pk: string }).pk;
        await scheduler.schedule(Promise.resolve(), `${String(property)} ${pk}`);
        return value.apply(target, args);
      };
    },
  });
}

/**
 * Runs one schedule through `httpIdempotency` with an injected clock, checking after every
 * step and at the end:
 * - each key commits at most one staged effect, and only with a stored outcome, by the attempt that stored it;
 * - the first stored outcome never changes, and every replay equals it;
 * - an attempt answers either the stored outcome, its own outcome (which is then the stored one,
 *   or a released 5xx), a planned throw, or a documented problem that its situation allows;
 * - once every lease has ended, each key is resolvable: a retry replays, runs, or (an effect
 *   had begun and no hook decides otherwise) answers 409 needs-review; no record stays IN_PROGRESS.
 */
export async function runSchedule(
  makeWorld: WorldFactory,
  scheduler: fc.Scheduler,
  schedule: Schedule,
  runId: string,
): Promise<void> {
  let nowEpochMs = START_EPOCH_MS;
  const clock = () => nowEpochMs;
  const world = makeWorld(clock, runId);
  const keyName = (key: number) => `${runId}-k${key}`;
  const pkOf = (key: string) => requestPk('-', 'POST /payments', key);
  const variantOfFingerprint = new Map([0, 1].map((variant) => [fingerprintOf(bodyOf(variant)), variant as 0 | 1]));

  const attempts = new Map<string, Attempt>();
  const firstStored = new Map<string, Stored>();
  const admittedVariants = new Map<string, Set<number>>();
  const effectBegun = new Set<string>();
  /** Violations seen inside handlers, where throwing would only change the attempt's answer. */
  const violations: Error[] = [];
  let nextId = 0;

  const recover =
    schedule.recover === 'none'
      ? undefined
      : async (): Promise<RecoveryDecision> =>
          schedule.recover === 'completed'
            ? { outcome: 'completed', response: RECOVERED }
            : { outcome: schedule.recover as 'rerun' | 'review' };

  const handler = middy(async (event: { headers: Record<string, string> }, context: object) => {
    const attempt = attempts.get(event.headers['x-attempt'])!;
    const scope = idempotencyOf(context);
    const holders = [...attempts.values()].filter(
      (other) =>
        other.key === attempt.key &&
        other.ranHandler &&
        other.state !== 'done' &&
        nowEpochMs <= other.leaseFromEpochMs! + LEASE_MS,
    );
    if (holders.length > 0) {
      violations.push(
        violation('a handler started while another attempt on the same key held a live lease', {
          starting: attempt.id,
          holders: holders.map((h) => ({ id: h.id, state: h.state, plan: h.plan })),
          recover: schedule.recover,
        }),
      );
    }
    attempt.ranHandler = true;
    attempt.leaseFromEpochMs = nowEpochMs;
    attempt.recordAttempt = scope.attempt;
    admittedVariants.set(attempt.key, (admittedVariants.get(attempt.key) ?? new Set()).add(attempt.plan.variant));
    scope.stage({ Put: { TableName: world.effectsTable, Item: { pk: attempt.key, sk: attempt.id } } });
    const begin = async () => {
      await scope.beginEffect('charge');
      effectBegun.add(attempt.key);
    };
    if (attempt.plan.effect === 'before-stall') await begin();
    if (attempt.stalls) {
      attempt.state = 'stalled';
      await new Promise<void>((resolve) => {
        attempt.resume = resolve;
        attempt.park();
      });
      attempt.state = 'running';
    }
    if (attempt.plan.effect === 'after-stall') await begin();
    if (attempt.plan.outcome === 'throw') throw new PlannedFailure(`${attempt.id} failed as planned`);
    return {
      statusCode: attempt.plan.outcome,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ by: attempt.id, variant: attempt.plan.variant }),
    };
  }).use(
    httpIdempotency({
      journal: scheduled(world.journal, scheduler),
      leaseMs: LEASE_MS,
      clock,
      recover,
      fingerprint: (event: { body: string }) => event.body,
    }),
  );

  function launch(plan: AttemptPlan, stalls: boolean): Attempt {
    const id = `a${++nextId}`;
    let park: () => void = () => undefined;
    const parked = new Promise<void>((resolve) => (park = resolve));
    const attempt: Attempt = {
      id,
      plan,
      key: keyName(plan.key),
      stalls,
      state: 'running',
      ranHandler: false,
      parked,
      park,
      settled: Promise.resolve(),
      checked: false,
    };
    attempts.set(id, attempt);
    const event = {
      version: '2.0',
      routeKey: 'POST /payments',
      rawPath: '/payments',
      headers: { 'content-type': 'application/json', 'idempotency-key': attempt.key, 'x-attempt': id },
      requestContext: { http: { method: 'POST', path: '/payments' } },
      body: bodyOf(plan.variant),
      isBase64Encoded: false,
    };
    attempt.settled = (handler(event as never, { awsRequestId: id } as never) as Promise<Answer>)
      .then(
        (answer) => void (attempt.answer = answer),
        (error: unknown) => void (attempt.error = error ?? new Error('rejected without an error')),
      )
      .finally(() => {
        attempt.state = 'done';
        attempt.park();
      });
    return attempt;
  }

  function checkAnswer(attempt: Attempt): void {
    const details = {
      attempt: { id: attempt.id, key: attempt.key, plan: attempt.plan },
      answer: attempt.answer,
      error: String(attempt.error ?? ''),
      stored: firstStored.get(attempt.key),
    };
    if (attempt.error !== undefined) {
      invariant(
        attempt.error instanceof PlannedFailure && attempt.plan.outcome === 'throw',
        'an attempt threw an error that is not the one its handler planned',
        details,
      );
      return;
    }
    const answer = attempt.answer!;
    if (answer.headers?.['content-type'] === 'application/problem+json') {
      const type = (JSON.parse(answer.body) as { type: string }).type;
      if (type === `${PREFIX}request-in-progress`)
        invariant(
          answer.statusCode === 409 && answer.headers['retry-after'] !== undefined,
          '409 request-in-progress without Retry-After',
          details,
        );
      else if (type === `${PREFIX}needs-review`)
        invariant(
          answer.statusCode === 409 && effectBegun.has(attempt.key),
          'needs-review although no effect had begun on this key',
          details,
        );
      else if (type === `${PREFIX}idempotency-key-reused`) {
        invariant(
          answer.statusCode === 422 &&
            [...(admittedVariants.get(attempt.key) ?? [])].some((v) => v !== attempt.plan.variant),
          '422 although no other payload used this key',
          details,
        );
      } else invariant(false, `undocumented problem ${type}`, details);
      return;
    }
    if (answer.headers?.[REPLAYED] === 'true') {
      invariant(
        same(storedFormOf(answer), firstStored.get(attempt.key)),
        'a replay differs from the first stored outcome',
        details,
      );
      const variant = (JSON.parse(answer.body) as { variant?: number }).variant;
      invariant(
        variant === undefined || variant === attempt.plan.variant,
        'a replay answered a request with another payload',
        details,
      );
      return;
    }
    invariant(attempt.ranHandler, 'an attempt answered an outcome without running its handler', details);
    invariant(
      answer.statusCode === attempt.plan.outcome && (JSON.parse(answer.body) as { by: string }).by === attempt.id,
      'an attempt answered an outcome that is not its own and not marked as a replay',
      details,
    );
    if (answer.statusCode !== 503)
      invariant(
        same(storedFormOf(answer), firstStored.get(attempt.key)),
        'an attempt answered its own outcome but another one is stored',
        details,
      );
  }

  async function checkInvariants(): Promise<void> {
    if (violations.length > 0) throw violations[0];
    for (let key = 0; key < KEY_COUNT; key++) {
      const name = keyName(key);
      const record = await world.journal.get(pkOf(name));
      const effects = await world.effectsOf(name);
      const details = {
        key: name,
        record: record && {
          status: record.status,
          attempt: record.attempt,
          effectStarted: record.effectStarted,
          response: record.response,
        },
        effects,
        firstStored: firstStored.get(name),
      };
      invariant(effects.length <= 1, 'more than one staged effect committed for one key', details);
      if (record?.status === RecordStatus.completed) {
        const stored = storedFormOf(record.response!.value as Answer);
        if (!firstStored.has(name)) firstStored.set(name, stored);
        invariant(same(stored, firstStored.get(name)), 'the stored outcome changed', details);
        const by = (JSON.parse(stored.body) as { by?: string }).by;
        invariant(
          JSON.stringify(effects) === JSON.stringify(by === undefined ? [] : [by]),
          'the committed effect does not belong to the attempt whose outcome is stored',
          details,
        );
        invariant(
          by === undefined || attempts.get(by)?.recordAttempt === record.attempt,
          'the stored outcome is not the one of the attempt holding the lease',
          { ...details, storedBy: by && { id: by, recordAttempt: attempts.get(by)?.recordAttempt } },
        );
      } else {
        invariant(!firstStored.has(name), 'a stored outcome disappeared', details);
        invariant(effects.length === 0, 'an effect committed without a stored outcome', details);
      }
    }
    for (const attempt of attempts.values()) {
      if (attempt.state === 'done' && !attempt.checked) {
        attempt.checked = true;
        checkAnswer(attempt);
      }
    }
  }

  const stalled = () => [...attempts.values()].filter((attempt) => attempt.state === 'stalled');
  for (const command of schedule.commands) {
    switch (command.kind) {
      case 'start': {
        const started = command.attempts.map((plan) => launch(plan, true));
        await scheduler.waitFor(Promise.all(started.map((attempt) => attempt.parked)));
        break;
      }
      case 'resume': {
        const candidates = stalled();
        if (candidates.length === 0) break;
        const attempt = candidates[command.pick % candidates.length];
        attempt.resume!();
        await scheduler.waitFor(attempt.settled);
        break;
      }
      case 'crash': {
        const candidates = stalled();
        if (candidates.length > 0) candidates[command.pick % candidates.length].state = 'crashed';
        break;
      }
      case 'advance':
        nowEpochMs += command.ms;
        break;
    }
    await checkInvariants();
  }

  // Every handler still stalled is a crashed process now; once every lease has ended, each key must be resolvable.
  for (const attempt of stalled()) attempt.state = 'crashed';
  nowEpochMs += LEASE_MS + 1;
  for (let key = 0; key < KEY_COUNT; key++) {
    const name = keyName(key);
    const before: JournalRecord | undefined = await world.journal.get(pkOf(name));
    const variant = before ? variantOfFingerprint.get(before.fingerprint)! : 0;
    const probe = launch({ key, variant, outcome: 201, effect: 'none' }, false);
    await scheduler.waitFor(probe.settled);
    await checkInvariants();
    const answer = probe.answer!;
    const details = {
      key: name,
      before: before && { status: before.status, effectStarted: before.effectStarted, attempt: before.attempt },
      recover: schedule.recover,
      answer,
      error: String(probe.error ?? ''),
    };
    const effectMayHaveHappened =
      before !== undefined &&
      (before.status === RecordStatus.unknown || (before.status === RecordStatus.inProgress && before.effectStarted));
    if (before?.status === RecordStatus.completed || (effectMayHaveHappened && schedule.recover === 'completed')) {
      invariant(
        answer?.headers?.[REPLAYED] === 'true',
        'after the leases, a retry of a completed (or recovered) key does not replay',
        details,
      );
    } else if (effectMayHaveHappened && schedule.recover !== 'rerun') {
      invariant(
        answer?.headers?.['content-type'] === 'application/problem+json' &&
          JSON.parse(answer.body).type === `${PREFIX}needs-review`,
        'after the leases, a key whose effect may have happened does not answer needs-review',
        details,
      );
    } else {
      invariant(
        answer?.statusCode === 201 && answer.headers?.[REPLAYED] === undefined,
        'after the leases, a key with no outcome is not run again',
        details,
      );
    }
    const after = await world.journal.get(pkOf(name));
    invariant(
      after !== undefined && after.status !== RecordStatus.inProgress,
      'a record is still IN_PROGRESS after its retry',
      { ...details, after: after?.status },
    );
    const again = launch({ key, variant, outcome: 201, effect: 'none' }, false);
    await scheduler.waitFor(again.settled);
    await checkInvariants();
    if (after.status === RecordStatus.completed)
      invariant(again.answer?.headers?.[REPLAYED] === 'true', 'a second retry of a settled key does not replay', {
        ...details,
        again: again.answer,
      });
  }
}
