import type { Context, SQSRecord } from 'aws-lambda';
import { bindScope, fingerprintOf, newTrace, sha256Hex, unbindScope, type AttemptTrace, type IdempotencyEngine, type IdempotencyScope } from '../engine/index.js';
import { IdempotencyError, KeyInvalidError, KeyMissingError } from '../errors/index.js';
import { keyProblem } from '../http/key-header.js';
import { messagePk } from '../journal/index.js';
import { MetricName, type Telemetry } from '../telemetry/index.js';
import type { ConsumerSettings } from './sqs-consumer-options.js';

/**
 * Handles one SQS record inside a guarded attempt; `idempotencyOf(context)` works inside.
 * A resolved promise marks the message processed (its value is not stored); a rejection
 * reports the record as failed.
 */
export type SqsRecordHandler = (record: SQSRecord, context: Context) => Promise<unknown>;

/** What became of one record. */
export type RecordOutcome = 'processed' | 'suppressed' | 'failed';

/** The parts of a consumer one record attempt uses. */
export interface RecordGuard {
  readonly settings: ConsumerSettings;
  readonly engine: IdempotencyEngine;
  readonly telemetry: Telemetry;
  readonly handler: SqsRecordHandler;
}

/**
 * Runs one record through the engine under `msg#<consumer>#<messageId>`. Never throws: a
 * record that cannot be handled comes back `'failed'`, with its reason logged, so one bad
 * record never fails its batch.
 */
export async function attemptRecord(guard: RecordGuard, record: SQSRecord, context: Context): Promise<RecordOutcome> {
  const { settings, engine, telemetry } = guard;
  const clock = settings.engineSettings.clock;
  const startedAtEpochMs = clock();
  const trace = newTrace();
  let key: string | undefined;
  let requestHash: string | undefined;
  try {
    key = readMessageId(settings, record, trace);
    requestHash = settings.fingerprint ? fingerprintOf(settings.fingerprint(record)) : sha256Hex(record.body ?? '');
    const remainingTimeMs = typeof context.getRemainingTimeInMillis === 'function' ? () => context.getRemainingTimeInMillis!() : undefined;
    const request = { pk: messagePk(settings.consumer, key), key, scope: settings.consumer, fingerprint: requestHash, remainingTimeMs };
    if (settings.engineSettings.effects === 'staged-only') {
      const end = await engine.runStagedOnly(
        request,
        async (scope) => {
          await handleScoped(guard, record, context, scope);
          return { store: true, response: undefined };
        },
        trace,
      );
      if (end.kind !== 'replay') return 'processed';
      countAsSuppressed(trace);
      return 'suppressed';
    }
    const admission = await engine.admit(request, trace);
    if (admission.kind === 'replay') {
      countAsSuppressed(trace);
      return 'suppressed';
    }
    try {
      await handleScoped(guard, record, context, admission.scope);
    } catch (error) {
      await engine.abandon(admission.scope, trace);
      throw error;
    }
    await engine.settle(admission.scope, { store: true, response: undefined }, trace);
    return 'processed';
  } catch (error) {
    logFailure(settings, record, trace, error);
    return 'failed';
  } finally {
    telemetry.emit({ requestId: context.awsRequestId, operation: settings.consumer, key, requestHash }, trace, startedAtEpochMs, clock());
  }
}

/** Runs the record handler with `scope` bound to a context of the record's own, so records handled side by side never share a scope. */
async function handleScoped(guard: RecordGuard, record: SQSRecord, context: Context, scope: IdempotencyScope): Promise<void> {
  const recordContext = Object.create(context) as Context;
  bindScope(recordContext, scope);
  try {
    await guard.handler(record, recordContext);
  } finally {
    unbindScope(recordContext);
  }
}

/** A collision with a running attempt is routine; anything else needs a look. */
function logFailure(settings: ConsumerSettings, record: SQSRecord, trace: AttemptTrace, error: unknown): void {
  const fields = {
    consumer: settings.consumer,
    message_id: record.messageId,
    idempotency_status: trace.status,
    reason: error instanceof Error ? error.message : String(error),
    error_code: error instanceof IdempotencyError ? error.code : undefined,
  };
  if (trace.status === 'in_progress') settings.logger.info('sqs record reported as failed', fields);
  else settings.logger.error('sqs record reported as failed', fields);
}

function readMessageId(settings: ConsumerSettings, record: SQSRecord, trace: AttemptTrace): string {
  let messageId: unknown;
  try {
    messageId = settings.messageId(record);
  } catch (error) {
    trace.status = error instanceof KeyMissingError ? 'missing_key' : 'invalid_key';
    throw error;
  }
  if (messageId === undefined || messageId === null || messageId === '') {
    trace.status = 'missing_key';
    throw new KeyMissingError(`The record has no message id for consumer ${settings.consumer}`);
  }
  const problem = typeof messageId === 'string' ? keyProblem(messageId) : 'must be a string';
  if (problem) {
    trace.status = 'invalid_key';
    throw new KeyInvalidError(`The message id ${problem}`);
  }
  return messageId as string;
}

/** A queue counts a replay as a suppressed duplicate, under the consumer's dimension. */
function countAsSuppressed(trace: AttemptTrace): void {
  const replay = trace.metrics.indexOf(MetricName.replay);
  if (replay >= 0) trace.metrics.splice(replay, 1);
  trace.metrics.push(MetricName.duplicateSuppressed);
}
