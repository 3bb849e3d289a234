import { JournalThrottledError, type JournalUnavailableError, type RecordUnreadableError } from '../core/index.js';
import {
  MetricName,
  newTrace,
  type AttemptIdentity,
  type AttemptTrace,
  type Telemetry,
  type TracerLike,
} from '../telemetry/index.js';
import { ATTEMPT_OUTCOMES, type AttemptOutcome } from './decision.js';

/**
 * What one attempt says of itself: its status and metrics, written only through {@link note}
 * from the one table ({@link ATTEMPT_OUTCOMES}), and its log line, metrics and trace annotations,
 * emitted once by {@link emit}. The attempt owns one and is its only writer.
 */
export class AttemptLog {
  readonly trace: AttemptTrace = newTrace();
  private readonly startedAtEpochMs: number;
  private written = false;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly clock: () => number,
    private readonly tracer?: TracerLike,
  ) {
    this.startedAtEpochMs = clock();
  }

  /** Writes an outcome's status and metrics: the one place either is written. */
  note(outcome: AttemptOutcome): void {
    const { status, metrics } = ATTEMPT_OUTCOMES[outcome];
    if (status) this.trace.status = status;
    this.trace.metrics.push(...metrics);
  }

  /**
   * Counts an attempt refused because its record cannot be read: nothing runs and nothing is written, and the
   * operator hears of it (the log line carries the reason, `JournalError` counts it).
   */
  noteUnreadable(error: RecordUnreadableError): void {
    if (this.trace.failure === error) return;
    this.note('unreadable');
    this.trace.failure = error;
  }

  /**
   * Counts an attempt refused because the journal could not be reached. The SDK's words (an endpoint, an ARN, an
   * account id) go to the log line only: the caller's answer never carries them.
   */
  noteUnavailable(error: JournalUnavailableError): void {
    this.note(error instanceof JournalThrottledError ? 'journalThrottled' : 'journalUnavailable');
    this.trace.failure ??= error;
  }

  /**
   * Counts a record the attempt could not let go (released or marked `UNKNOWN`): its lease resolves it, like a crash.
   * Any error but a throttle counts as the journal unavailable.
   */
  noteLetGoFailure(error: unknown): void {
    this.note(error instanceof JournalThrottledError ? 'journalThrottled' : 'journalUnavailable');
  }

  /**
   * Counts a completion that failed after the handler ran while its answer stands (nothing else was to commit): the
   * record is left to its lease. A throttle is counted by {@link noteThrottles}, never as `JournalError`.
   */
  noteUnstored(error: unknown): void {
    if (!(error instanceof JournalThrottledError)) this.note('journalError');
  }

  /**
   * Counts `JournalThrottled` once for an attempt whose journal calls met throttles, and puts DynamoDB's reasons in
   * the log line (`throttle_reasons`). The reasons only: the SDK's message names the table's ARN.
   */
  noteThrottles(throttles: readonly JournalThrottledError[]): void {
    if (throttles.length === 0 || this.trace.throttleReasons) return;
    this.trace.metrics.push(MetricName.journalThrottled);
    this.trace.throttleReasons = [...new Set(throttles.flatMap((throttle) => throttle.reasons))];
  }

  /** Whether the log line was written. */
  get emitted(): boolean {
    return this.written;
  }

  /** Writes the log line and metrics, and annotates the trace segment (never with the key); once. */
  emit(identity: AttemptIdentity): void {
    if (this.written) return;
    this.written = true;
    this.telemetry.emit(identity, this.trace, this.startedAtEpochMs, this.clock());
    this.annotate();
  }

  private annotate(): void {
    const { tracer } = this;
    if (!tracer) return;
    try {
      if (this.trace.status) tracer.putAnnotation('idempotency_status', this.trace.status);
      if (this.trace.attempt !== undefined) tracer.putAnnotation('attempt', this.trace.attempt);
    } catch {
      // Tracing must not turn a correct answer into a failure.
    }
  }
}
