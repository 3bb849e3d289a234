import { DEFAULT_RETRY_OPTIONS, decideNextAttempt, RetryBudget, type RetryPolicy } from '../../src/client/index.js';
import { seededRandom } from '../retry-storm/seeded-random.js';
import { ANSWER_STATUSES, answerReader, type AnswerReader, type AnswerStatus } from './caller-answers.js';
import { latencySampler, type CallCosts } from './call-costs.js';
import { HotPartition, type PartitionLimits, type PartitionSecond } from './partition.js';
import type { Protections } from './protections.js';
import { SDK_THROTTLE_RETRIES, SdkRetries } from './sdk-retries.js';
import { TimeWheel } from './time-wheel.js';

/** One storm on one key. Times are simulated milliseconds from the storm's start. */
export interface HotKeyOptions {
  /** Containers (Lambda execution environments or servers), each with its own client and memory. */
  readonly containers: number;
  /** Callers per container, all sending the same key and body. */
  readonly callersPerContainer: number;
  readonly protections: Protections;
  readonly costs: CallCosts;
  /** @default 1 */
  readonly seed?: number;
  /** Each container's burst starts at a time drawn uniformly from `[0, arrivalMs)`. @default 1_000 */
  readonly arrivalMs?: number;
  /**
   * A container's callers send their first attempts within this long of its burst's start: 0
   * makes them concurrent, as a burst of redeliveries reaching one process is. @default 0
   */
  readonly containerBurstMs?: number;
  /** How long the handler runs once admitted. @default 100 */
  readonly handlerMs?: number;
  /** Lease of a reservation: the Lambda's remaining time + 1 s under API Gateway's 29 s. @default 30_000 */
  readonly leaseMs?: number;
  /** How the guard reserves: one conditional `PutItem`, or a `GetItem` first. @default 'put-first' */
  readonly reservation?: 'put-first' | 'read-first';
  /** A 429's `Retry-After` is a whole number of seconds drawn uniformly from 1 to this. @default 3 */
  readonly throttleRetryAfterMaxSeconds?: number;
  /** Round trip to the shared outcome cache. @default 0.5 */
  readonly cacheRoundTripMs?: number;
  /** The callers of one container share one `RetryBudget` (its defaults); false: no budget. @default true */
  readonly retryBudget?: boolean;
  /** Partition limits. @default PARTITION_LIMITS */
  readonly limits?: PartitionLimits;
}

/** What one storm cost and what its callers saw. */
export interface HotKeyResult {
  readonly containers: number;
  readonly callersPerContainer: number;
  readonly callers: number;
  /** Journal calls that reached DynamoDB, SDK retries included. */
  readonly journalCalls: number;
  readonly journalCallsByKind: Readonly<Record<JournalCallKind, number>>;
  readonly throttledCalls: number;
  /** Consumed write units in the busiest second, and on average over the seconds from 0 to the last call. */
  readonly writeUnitsPerSecond: { readonly peak: number; readonly mean: number; readonly peakOffered: number };
  readonly readUnitsPerSecond: { readonly peak: number };
  readonly writeUnits: number;
  readonly readUnits: number;
  /** Every answer any caller received, retries included. */
  readonly answers: Readonly<Record<AnswerStatus, number>>;
  /** Callers that got a 2xx before their client gave up. */
  readonly callersSucceeded: number;
  /** The last answer of each caller that gave up. */
  readonly callersGaveUpOn: Readonly<Record<AnswerStatus, number>>;
  /** Times the handler ran: more than one means a lease expired and another attempt took over. */
  readonly handlerRuns: number;
  /** When the last caller was done, succeeded or given up. */
  readonly drainMs: number;
  /** When each caller sent its first attempt, by container: drawn from the seed before anything else. */
  readonly firstAttemptsMs: readonly (readonly number[])[];
  readonly seconds: readonly PartitionSecond[];
}

/** The journal calls of the guard (put-first: the reservation and the completion; read-first adds the read). */
export type JournalCallKind = 'reserve' | 'get' | 'complete';

type RecordState =
  | { readonly status: 'absent' }
  | { readonly status: 'inProgress'; readonly leaseUntilMs: number; readonly generation: number }
  | { readonly status: 'completed' };

/** The journal's answer to a reservation, or a throttle the SDK gave up on. */
type ReserveAnswer =
  | { readonly kind: 'reserved'; readonly generation: number; readonly leaseUntilMs: number }
  | { readonly kind: 'inProgress'; readonly leaseUntilMs: number }
  | { readonly kind: 'completed' }
  | { readonly kind: 'throttled' };

/** Units one call asks of the partition. */
interface CallUnits {
  readonly writeUnits: number;
  readonly readUnits: number;
}

interface Caller {
  readonly container: Container;
  attempt: number;
  startedAtMs: number;
}

interface Container {
  readonly sdk: SdkRetries;
  /** SDK attempts a throttled call of each kind is given. */
  readonly sdkAttempts: Readonly<Record<JournalCallKind, number>>;
  readonly policy: RetryPolicy;
  /** Callers waiting on the journal call in flight (single-flight), the leader first. */
  flight: Caller[] | undefined;
  /** Until when a live lease seen here answers 409 from memory (0: nothing remembered). */
  memoryUntilMs: number;
}

/** `Retry-After` of a 409 and of a 503: the guard's `retryAfterSeconds` default. */
const GUARD_RETRY_AFTER_SECONDS = 1;

/**
 * Discrete-event simulation of a retry storm on one new key: `containers × callersPerContainer`
 * callers, each retrying with the real client policy (`decideNextAttempt`: full-jitter capped
 * exponential backoff, `Retry-After`, deadline, attempts, a `RetryBudget` per container), against
 * a guard with the given protections over one DynamoDB partition key value. Deterministic for
 * a seed; no I/O and no real time.
 *
 * @example
 * const run = await simulateHotKey({ containers: 100, callersPerContainer: 10, protections, costs: measuredCallCosts() })
 * run.throttledCalls // 0 when the storm fits one partition
 */
export async function simulateHotKey(options: HotKeyOptions): Promise<HotKeyResult> {
  const throttleRetryAfterMaxSeconds = options.throttleRetryAfterMaxSeconds ?? 3;
  const reader = await answerReader(Math.max(throttleRetryAfterMaxSeconds, GUARD_RETRY_AFTER_SECONDS));
  return new Storm(options, reader, throttleRetryAfterMaxSeconds).run();
}

class Storm {
  readonly #queue = new TimeWheel();
  readonly #partition: HotPartition;
  readonly #random: () => number;
  readonly #latencyMs: () => number;
  readonly #callsByKind: Record<JournalCallKind, number> = { reserve: 0, get: 0, complete: 0 };
  readonly #answers: Record<AnswerStatus, number> = { '2xx': 0, '409': 0, '429': 0, '503': 0 };
  readonly #gaveUpOn: Record<AnswerStatus, number> = { '2xx': 0, '409': 0, '429': 0, '503': 0 };
  #record: RecordState = { status: 'absent' };
  #generation = 0;
  #cacheFilledAtMs = Number.POSITIVE_INFINITY;
  #nowMs = 0;
  #succeeded = 0;
  #handlerRuns = 0;
  #drainMs = 0;
  readonly #firstAttemptsMs: number[][] = [];

  readonly #units: Record<'reserve' | 'refusedReserve' | 'complete' | 'get', CallUnits>;
  readonly #arrivalMs: number;
  readonly #containerBurstMs: number;
  readonly #handlerMs: number;
  readonly #leaseMs: number;
  readonly #reservation: 'put-first' | 'read-first';
  readonly #cacheRoundTripMs: number;

  constructor(
    private readonly options: HotKeyOptions,
    private readonly reader: AnswerReader,
    private readonly throttleRetryAfterMaxSeconds: number,
  ) {
    this.#partition = new HotPartition(options.limits);
    this.#random = seededRandom(options.seed ?? 1);
    this.#latencyMs = latencySampler(options.costs.latency, this.#random);
    const { costs } = options;
    this.#units = {
      reserve: { writeUnits: costs.reserveWriteUnits, readUnits: 0 },
      refusedReserve: { writeUnits: costs.refusedReserveWriteUnits, readUnits: 0 },
      complete: { writeUnits: costs.completeWriteUnits, readUnits: 0 },
      get: { writeUnits: 0, readUnits: costs.getReadUnits },
    };
    this.#arrivalMs = options.arrivalMs ?? 1_000;
    this.#containerBurstMs = options.containerBurstMs ?? 0;
    this.#handlerMs = options.handlerMs ?? 100;
    this.#reservation = options.reservation ?? 'put-first';
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#cacheRoundTripMs = options.cacheRoundTripMs ?? 0.5;
  }

  run(): HotKeyResult {
    for (let c = 0; c < this.options.containers; c++) {
      const container = this.#container();
      const burstAtMs = this.#random() * this.#arrivalMs;
      const firstAttemptsMs: number[] = [];
      this.#firstAttemptsMs.push(firstAttemptsMs);
      for (let i = 0; i < this.options.callersPerContainer; i++) {
        const caller: Caller = {
          container,
          attempt: 1,
          startedAtMs: burstAtMs + this.#random() * this.#containerBurstMs,
        };
        firstAttemptsMs.push(caller.startedAtMs);
        this.#at(caller.startedAtMs, () => {
          container.policy.budget?.recordFirstAttempt();
          this.#attempt(caller);
        });
      }
    }
    for (let event = this.#queue.pop(); event !== undefined; event = this.#queue.pop()) {
      // Events of one 0.1 ms slot may run a little out of time order: the clock never goes back.
      this.#nowMs = Math.max(this.#nowMs, event.atMs);
      event.run();
    }
    return this.#result();
  }

  #container(): Container {
    const bounded = this.options.protections.boundedSdkAttempts;
    // The read of 'read-first' is made inside the reservation, and bounded as it is.
    const sdkAttempts = bounded
      ? { reserve: bounded.reserve, get: bounded.reserve, complete: bounded.complete }
      : {
          reserve: SDK_THROTTLE_RETRIES.maxAttempts,
          get: SDK_THROTTLE_RETRIES.maxAttempts,
          complete: SDK_THROTTLE_RETRIES.maxAttempts,
        };
    const budget = (this.options.retryBudget ?? true) ? new RetryBudget({ clock: () => this.#nowMs }) : undefined;
    return {
      sdk: new SdkRetries(this.#random),
      sdkAttempts,
      policy: {
        ...DEFAULT_RETRY_OPTIONS,
        maxRetryAfterMs: DEFAULT_RETRY_OPTIONS.maxDelayMs,
        budget,
        random: this.#random,
      },
      flight: undefined,
      memoryUntilMs: 0,
    };
  }

  /** One attempt reaches its container's guard. */
  #attempt(caller: Caller): void {
    if (this.options.protections.sharedOutcomeCache) {
      // The cache is asked first and only for a completed outcome; a miss costs its round trip.
      const answeredAtMs = this.#nowMs + this.#cacheRoundTripMs;
      if (this.#cacheFilledAtMs <= this.#nowMs) return this.#at(answeredAtMs, () => this.#answer(caller, '2xx'));
      return this.#at(answeredAtMs, () => this.#guard(caller));
    }
    this.#guard(caller);
  }

  /** What the guard does after the cache: the memory, the flight in progress, or a journal call of its own. */
  #guard(caller: Caller): void {
    const { protections } = this.options;
    const container = caller.container;
    if (protections.leaseMemory !== undefined && container.memoryUntilMs > this.#nowMs) {
      return this.#answer(caller, '409', GUARD_RETRY_AFTER_SECONDS);
    }
    if (protections.singleFlight && container.flight !== undefined) {
      container.flight.push(caller);
      return;
    }
    const flight = [caller];
    if (protections.singleFlight) container.flight = flight;
    this.#reserve(container, (answer) => {
      if (container.flight === flight) container.flight = undefined;
      this.#settleFlight(container, flight, answer);
    });
  }

  #settleFlight(container: Container, flight: readonly Caller[], answer: ReserveAnswer): void {
    const [leader, ...joiners] = flight;
    if (leader === undefined) return;
    switch (answer.kind) {
      case 'completed':
        // A record read that is not in progress under a live lease replaces what was remembered: nothing.
        container.memoryUntilMs = 0;
        for (const caller of flight) this.#answer(caller, '2xx');
        return;
      case 'throttled': {
        if (this.options.protections.boundedSdkAttempts === undefined) {
          for (const caller of flight) this.#answer(caller, '503', GUARD_RETRY_AFTER_SECONDS);
          return;
        }
        // One `JournalThrottledError` per journal call, its `Retry-After` drawn once: the callers who shared the call
        // meet the same error and are told the same.
        const retryAfterSeconds = 1 + Math.floor(this.#random() * this.throttleRetryAfterMaxSeconds);
        for (const caller of flight) this.#answer(caller, '429', retryAfterSeconds);
        return;
      }
      case 'inProgress':
        this.#remember(container, answer.leaseUntilMs);
        for (const caller of flight) this.#answer(caller, '409', GUARD_RETRY_AFTER_SECONDS);
        return;
      case 'reserved':
        this.#remember(container, answer.leaseUntilMs);
        for (const caller of joiners) this.#answer(caller, '409', GUARD_RETRY_AFTER_SECONDS);
        this.#handlerRuns += 1;
        this.#at(this.#nowMs + this.#handlerMs, () => this.#complete(container, leader, answer.generation));
        return;
    }
  }

  /** A live lease seen replaces what the container remembered of the key (as `LeaseMemory.note` does). */
  #remember(container: Container, leaseUntilMs: number): void {
    const memory = this.options.protections.leaseMemory;
    if (memory === undefined) return;
    container.memoryUntilMs = Math.min(leaseUntilMs, this.#nowMs + (memory.maxMs ?? Number.POSITIVE_INFINITY));
  }

  /** The handler's answer stands whatever the completion met: nothing else was to commit with it. */
  #complete(container: Container, leader: Caller, generation: number): void {
    this.#journalCall(
      container,
      'complete',
      () => this.#units.complete,
      () => {
        if (this.#record.status === 'inProgress' && this.#record.generation === generation) {
          this.#record = { status: 'completed' };
        }
      },
      (throttled) => {
        // The container forgets the lease it ended whatever the completion met (a completion whose answer was lost
        // may have landed). One lost to throttling leaves the record leased: the lease decides it later.
        container.memoryUntilMs = 0;
        if (!throttled && this.#record.status === 'completed') {
          if (this.options.protections.sharedOutcomeCache) {
            this.#cacheFilledAtMs = Math.min(this.#cacheFilledAtMs, this.#nowMs + this.#cacheRoundTripMs);
          }
        }
        this.#answer(leader, '2xx');
      },
    );
  }

  /** The reservation as the guard makes it: put-first is one conditional write; read-first reads first. */
  #reserve(container: Container, done: (answer: ReserveAnswer) => void): void {
    if (this.#reservation === 'put-first') return this.#put(container, done);
    let seen: ReserveAnswer | undefined;
    this.#journalCall(
      container,
      'get',
      () => this.#units.get,
      () => {
        seen = this.#readAnswer();
      },
      (throttled) => {
        if (throttled) return done({ kind: 'throttled' });
        if (seen !== undefined) return done(seen);
        this.#put(container, done);
      },
    );
  }

  /** What a read of the record settles without a write, if anything. */
  #readAnswer(): ReserveAnswer | undefined {
    const record = this.#record;
    if (record.status === 'completed') return { kind: 'completed' };
    if (record.status === 'inProgress' && record.leaseUntilMs > this.#nowMs) {
      return { kind: 'inProgress', leaseUntilMs: record.leaseUntilMs };
    }
    return undefined;
  }

  #put(container: Container, done: (answer: ReserveAnswer) => void): void {
    let answer: ReserveAnswer = { kind: 'throttled' };
    this.#journalCall(
      container,
      'reserve',
      () => (this.#readAnswer() === undefined ? this.#units.reserve : this.#units.refusedReserve),
      () => {
        answer = this.#readAnswer() ?? this.#takeLease();
      },
      (throttled) => done(throttled ? { kind: 'throttled' } : answer),
    );
  }

  #takeLease(): ReserveAnswer {
    this.#generation += 1;
    const leaseUntilMs = this.#nowMs + this.#leaseMs;
    this.#record = { status: 'inProgress', leaseUntilMs, generation: this.#generation };
    return { kind: 'reserved', generation: this.#generation, leaseUntilMs };
  }

  /**
   * One journal call through the container's SDK client: it reaches the partition half a round
   * trip after it is sent, where it is served (`apply`) or throttled; a throttle is sent again as
   * the SDK would (the retry's tokens are taken when the throttle reaches the partition rather
   * than half a round trip later, to spare an event), and `done` hears, a round trip after the
   * last send, whether the call finally was throttled.
   */
  #journalCall(
    container: Container,
    kind: JournalCallKind,
    unitsAtArrival: () => CallUnits,
    apply: () => void,
    done: (throttled: boolean) => void,
    attempt = 1,
    sentAtMs = this.#nowMs,
  ): void {
    const roundTripMs = this.#latencyMs();
    this.#at(sentAtMs + roundTripMs / 2, () => {
      this.#callsByKind[kind] += 1;
      if (this.#partition.tryServe(this.#nowMs, unitsAtArrival())) {
        apply();
        return this.#at(sentAtMs + roundTripMs, () => {
          container.sdk.recordSuccess(attempt);
          done(false);
        });
      }
      const delayMs = container.sdk.delayBeforeRetryMs(attempt, container.sdkAttempts[kind]);
      if (delayMs === undefined) return this.#at(sentAtMs + roundTripMs, () => done(true));
      this.#journalCall(container, kind, unitsAtArrival, apply, done, attempt + 1, sentAtMs + roundTripMs + delayMs);
    });
  }

  /** A caller receives an answer now: done on a 2xx, else its client decides whether and when to retry. */
  #answer(caller: Caller, status: AnswerStatus, retryAfterSeconds?: number): void {
    this.#answers[status] += 1;
    const reading = this.reader(status, retryAfterSeconds);
    if (status === '2xx' || !reading.retryable) {
      if (status === '2xx') this.#succeeded += 1;
      else this.#gaveUpOn[status] += 1;
      this.#drainMs = Math.max(this.#drainMs, this.#nowMs);
      return;
    }
    const decision = decideNextAttempt(caller.container.policy, {
      attempt: caller.attempt,
      elapsedMs: this.#nowMs - caller.startedAtMs,
      retryAfterMs: reading.retryAfterMs,
    });
    if (!decision.retry) {
      this.#gaveUpOn[status] += 1;
      this.#drainMs = Math.max(this.#drainMs, this.#nowMs);
      return;
    }
    caller.attempt += 1;
    this.#at(this.#nowMs + decision.delayMs, () => this.#attempt(caller));
  }

  #at(atMs: number, run: () => void): void {
    this.#queue.push({ atMs, run });
  }

  #result(): HotKeyResult {
    const seconds = this.#partition.seconds();
    const writeUnits = seconds.reduce((sum, second) => sum + second.consumedWriteUnits, 0);
    const readUnits = seconds.reduce((sum, second) => sum + second.consumedReadUnits, 0);
    const callers = this.options.containers * this.options.callersPerContainer;
    return {
      containers: this.options.containers,
      callersPerContainer: this.options.callersPerContainer,
      callers,
      journalCalls: seconds.reduce((sum, second) => sum + second.calls, 0),
      journalCallsByKind: { ...this.#callsByKind },
      throttledCalls: seconds.reduce((sum, second) => sum + second.throttledCalls, 0),
      writeUnitsPerSecond: {
        peak: Math.max(0, ...seconds.map((second) => second.consumedWriteUnits)),
        mean: seconds.length === 0 ? 0 : writeUnits / seconds.length,
        peakOffered: Math.max(0, ...seconds.map((second) => second.offeredWriteUnits)),
      },
      readUnitsPerSecond: { peak: Math.max(0, ...seconds.map((second) => second.consumedReadUnits)) },
      writeUnits,
      readUnits,
      answers: { ...this.#answers },
      callersSucceeded: this.#succeeded,
      callersGaveUpOn: Object.fromEntries(ANSWER_STATUSES.map((status) => [status, this.#gaveUpOn[status]])) as Record<
        AnswerStatus,
        number
      >,
      handlerRuns: this.#handlerRuns,
      drainMs: this.#drainMs,
      firstAttemptsMs: this.#firstAttemptsMs,
      seconds,
    };
  }
}
