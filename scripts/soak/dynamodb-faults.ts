import { ProvisionedThroughputExceededException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

import { type JournalOperation, journalOperationOf, RecordPrefix } from '../../src/entries/journal.js';

/** Where a handler process is killed: after its reservation landed, or after `beginEffect` (before or after the rail call). */
export type KillPoint = 'after-reserve' | 'after-begin-effect' | 'after-charge';

/** Which write's answer is lost after the write landed. */
export type DroppedWrite = 'reserve' | 'commit';

/** The DynamoDB faults one invocation (or, for the queue consumer, one moment) meets. */
export interface CallFaults {
  /** Dice for the per-call shares; seeded, so a run repeats. */
  readonly random: () => number;
  /** Share of SDK attempts refused with `ProvisionedThroughputExceededException` before they are sent. */
  readonly throttleShare: number;
  /** Share of SDK attempts held back by `latencyMs` before they are sent. */
  readonly latencyShare: number;
  readonly latencyMs: number;
  /** Loses the answer of the first such write after it landed; cleared once it fired. */
  dropAfter?: DroppedWrite;
  /** Set for an invocation that must die right after its reservation landed. */
  killAfterReserve?: () => Promise<never>;
  /** What fired, for the report. */
  readonly fired: FiredFaults;
}

/** Counts of what an invocation met. */
export interface FiredFaults {
  throttled: number;
  delayed: number;
  dropped?: DroppedWrite;
}

/** An empty tally. */
export function noFaultsFired(): FiredFaults {
  return { throttled: 0, delayed: 0 };
}

/**
 * Adds the soak's faults to a DynamoDB client's middleware stack, inside the SDK's retry loop
 * (step `finalizeRequest`), so each SDK attempt meets them and the SDK's own retries answer
 * them as they would in AWS: a throttled attempt is retried with backoff, a lost answer is
 * resent (a conditional reservation then finds its own record, a `TransactWriteItems` is
 * deduplicated by its `ClientRequestToken`). Requests go to the real DynamoDB Local.
 * `current` names the faults of the calling invocation (undefined: none).
 */
export function addDynamoDBFaults(client: DynamoDBClient, current: () => CallFaults | undefined): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const faults = current();
      if (!faults) return next(args);
      if (faults.throttleShare > 0 && faults.random() < faults.throttleShare) {
        faults.fired.throttled += 1;
        throw new ProvisionedThroughputExceededException({
          message: 'The level of configured provisioned throughput for the table was exceeded.',
          $metadata: { httpStatusCode: 400 },
        });
      }
      if (faults.latencyShare > 0 && faults.random() < faults.latencyShare) {
        faults.fired.delayed += 1;
        await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
      }
      const write = writeOf(journalOperationOf(args), args.input as WriteInput);
      const output = await next(args);
      if (write !== undefined && faults.dropAfter === write) {
        faults.dropAfter = undefined;
        faults.fired.dropped = write;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET', $metadata: {} });
      }
      if (write === 'reserve' && faults.killAfterReserve) await faults.killAfterReserve();
      return output;
    },
    { step: 'finalizeRequest', name: 'soakFaults' },
  );
}

interface WriteInput {
  readonly Item?: { readonly pk?: { readonly S?: string } };
}

/** The reservation of a request record (`req#…`), or a completion (leased or staged-only), by the journal's own tag. */
function writeOf(operation: JournalOperation | undefined, input: WriteInput): DroppedWrite | undefined {
  if (operation === 'reserve' && input.Item?.pk?.S?.startsWith(RecordPrefix.request)) return 'reserve';
  if (operation === 'complete' || operation === 'commitStaged') return 'commit';
  return undefined;
}
