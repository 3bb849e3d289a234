import { seededRandom } from '../retry-storm/seeded-random.js';
import type { DroppedWrite, KillPoint } from './dynamodb-faults.js';

/** Every fault the soak injects, as the report names them. */
export const FAULT_KINDS = [
  'dynamodb-throttle',
  'dynamodb-latency',
  'response-dropped-after-reserve',
  'response-dropped-after-commit',
  'kill-after-reserve',
  'kill-after-begin-effect',
  'kill-after-charge',
  'sqs-redelivery',
  'outbox-redispatch',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A stretch of time in which a share of DynamoDB calls is throttled or slowed. */
export interface FaultWindow {
  readonly kind: 'dynamodb-throttle' | 'dynamodb-latency';
  readonly startMs: number;
  readonly endMs: number;
  /** Share of SDK attempts that meet the fault. */
  readonly share: number;
  /** Added latency of a slowed call. */
  readonly latencyMs: number;
}

/** A one-off fault that becomes due at `atMs` and fires on the next request (or delivery) that can meet it. */
export interface OneOffFault {
  readonly kind: Exclude<FaultKind, FaultWindow['kind']>;
  readonly atMs: number;
}

/** The whole run's faults, in run time (ms since the load started). */
export interface FaultSchedule {
  readonly windows: readonly FaultWindow[];
  readonly oneOffs: readonly OneOffFault[];
}

/** Options of {@link buildFaultSchedule}. */
export interface FaultScheduleOptions {
  readonly seed: number;
  readonly durationMs: number;
  /**
   * Each cycle holds one throttle window, one latency window, one kill, one dropped answer of
   * each write and one of each queue fault; a run shorter than three cycles still gets one
   * kill at each kill point.
   * @default 10_000
   */
  readonly cycleMs?: number;
}

const KILL_POINTS: readonly OneOffFault['kind'][] = [
  'kill-after-reserve',
  'kill-after-begin-effect',
  'kill-after-charge',
];
const PER_CYCLE: readonly OneOffFault['kind'][] = [
  'response-dropped-after-reserve',
  'response-dropped-after-commit',
  'sqs-redelivery',
  'outbox-redispatch',
];
/** One-off faults are not scheduled this close to the end, so they can still fire. */
const TAIL_MS = 2_000;

/**
 * Draws the run's fault schedule from `seed`: the same seed and duration give the same
 * schedule.
 *
 * @example buildFaultSchedule({ seed: 1, durationMs: 120_000 }).oneOffs.length // 58
 */
export function buildFaultSchedule(options: FaultScheduleOptions): FaultSchedule {
  const random = seededRandom(options.seed);
  const cycleMs = options.cycleMs ?? 10_000;
  const windows: FaultWindow[] = [];
  const oneOffs: OneOffFault[] = [];
  const within = (startMs: number, spanMs: number) => startMs + Math.floor(random() * spanMs);
  for (let startMs = 0; startMs < options.durationMs; startMs += cycleMs) {
    const cycleEndMs = Math.min(startMs + cycleMs, options.durationMs);
    const throttleStartMs = within(startMs + 1_000, cycleMs * 0.5);
    windows.push({
      kind: 'dynamodb-throttle',
      startMs: throttleStartMs,
      endMs: throttleStartMs + 1_500 + Math.floor(random() * 1_500),
      share: 0.2 + random() * 0.3,
      latencyMs: 0,
    });
    const slowStartMs = within(startMs + 1_000, cycleMs * 0.6);
    windows.push({
      kind: 'dynamodb-latency',
      startMs: slowStartMs,
      endMs: slowStartMs + 1_000 + Math.floor(random() * 1_500),
      share: 0.3,
      latencyMs: 100 + Math.floor(random() * 400),
    });
    for (const kind of PER_CYCLE) oneOffs.push({ kind, atMs: within(startMs + 500, cycleEndMs - startMs - 1_000) });
  }
  // One kill per cycle, but at least one of each kill point however short the run.
  const killIntervalMs = Math.min(cycleMs, (options.durationMs - TAIL_MS) / KILL_POINTS.length);
  for (let i = 0, startMs = 0; startMs < options.durationMs - TAIL_MS; i++, startMs += killIntervalMs) {
    oneOffs.push({
      kind: KILL_POINTS[i % KILL_POINTS.length]!,
      atMs: within(startMs + killIntervalMs * 0.2, killIntervalMs * 0.6),
    });
  }
  return {
    windows: windows
      .filter((window) => window.startMs < options.durationMs)
      .map((window) => ({ ...window, endMs: Math.min(window.endMs, options.durationMs) })),
    oneOffs: oneOffs.filter((fault) => fault.atMs < options.durationMs - TAIL_MS).sort((a, b) => a.atMs - b.atMs),
  };
}

/** What an invocation of a handler is told to meet. */
export interface InvocationPlan {
  /** Seed of the invocation's dice for per-call shares. */
  readonly seed: number;
  readonly throttleShare: number;
  readonly latencyShare: number;
  readonly latencyMs: number;
  readonly dropAfter?: DroppedWrite;
  readonly killAt?: KillPoint;
}

/** The one-off faults an invocation was handed, so the ones that did not fire can be handed on. */
export type HandedFaults = readonly OneOffFault[];

/**
 * Hands the schedule's faults out as the run goes: windows apply to every call made while
 * they are open; a one-off fault, once due, goes to the next request that can meet it and
 * comes back into play when that request did not (a replay never reaches `beginEffect`).
 */
export class FaultPlanner {
  private readonly pending: OneOffFault[];
  private readonly random: () => number;

  constructor(
    private readonly schedule: FaultSchedule,
    seed: number,
  ) {
    this.pending = [...schedule.oneOffs];
    this.random = seededRandom(seed);
  }

  /** The DynamoDB shares in force at `nowMs`. */
  windowsAt(nowMs: number): Pick<InvocationPlan, 'throttleShare' | 'latencyShare' | 'latencyMs'> {
    const open = this.schedule.windows.filter((window) => window.startMs <= nowMs && nowMs < window.endMs);
    const throttle = open.find((window) => window.kind === 'dynamodb-throttle');
    const slow = open.find((window) => window.kind === 'dynamodb-latency');
    return { throttleShare: throttle?.share ?? 0, latencyShare: slow?.share ?? 0, latencyMs: slow?.latencyMs ?? 0 };
  }

  /** The plan of a guarded POST invocation starting at `nowMs`, and the one-off faults it was handed. */
  planWrite(nowMs: number, faultsAllowed: boolean): { plan: InvocationPlan; handed: HandedFaults } {
    const handed: OneOffFault[] = [];
    let dropAfter: DroppedWrite | undefined;
    let killAt: KillPoint | undefined;
    if (faultsAllowed) {
      const kill = this.takeDue(nowMs, (kind) => kind.startsWith('kill-'));
      if (kill) {
        handed.push(kill);
        killAt = kill.kind.slice('kill-'.length) as KillPoint;
      }
      // A killed request never reaches its answer: a lost answer goes to another request.
      const drop = killAt ? undefined : this.takeDue(nowMs, (kind) => kind.startsWith('response-dropped-'));
      if (drop) {
        handed.push(drop);
        dropAfter = drop.kind === 'response-dropped-after-reserve' ? 'reserve' : 'commit';
      }
    }
    return { plan: { ...this.planRead(nowMs, faultsAllowed), dropAfter, killAt }, handed };
  }

  /** The plan of an unguarded invocation (a GET): windows only. */
  planRead(nowMs: number, faultsAllowed: boolean): InvocationPlan {
    const windows = faultsAllowed ? this.windowsAt(nowMs) : { throttleShare: 0, latencyShare: 0, latencyMs: 0 };
    return { seed: Math.floor(this.random() * 2 ** 32), ...windows };
  }

  /** Takes a due queue-side fault of `kind`, if one is waiting. */
  takeQueueFault(kind: 'sqs-redelivery' | 'outbox-redispatch', nowMs: number): boolean {
    return this.takeDue(nowMs, (candidate) => candidate === kind) !== undefined;
  }

  /** Puts back handed faults that did not fire. */
  handBack(faults: readonly OneOffFault[]): void {
    this.pending.push(...faults);
    this.pending.sort((a, b) => a.atMs - b.atMs);
  }

  private takeDue(nowMs: number, matches: (kind: OneOffFault['kind']) => boolean): OneOffFault | undefined {
    const index = this.pending.findIndex((fault) => fault.atMs <= nowMs && matches(fault.kind));
    return index < 0 ? undefined : this.pending.splice(index, 1)[0];
  }
}
