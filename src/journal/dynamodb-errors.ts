import { LeaseLostError, StagedWriteError, UniqueConflictError, WriteConflictError } from '../core/index.js';
import type { CompletionWrites, TransactItem } from './journal.js';
import { cancellationReasonsOf, itemOf, tableOf, toJournalError, type AwsError } from './item-calls.js';
import { recordFromItem } from './record-item.js';

/** Cancellation reasons that a retry of the same transaction may not meet: the journal's kind of trouble. */
const TRANSIENT_REASONS = new Set([
  'None',
  'TransactionConflict',
  'ProvisionedThroughputExceeded',
  'ThrottlingError',
  'RequestLimitExceeded',
]);

/** How a completion transaction is laid out, to tell which of its items a failure is about. */
export interface CompletionLayout {
  /** The journal's own table. */
  readonly tableName: string;
  /** Every item sent: the fenced completion, then uniqueness claims, outbox events and staged writes. */
  readonly items: readonly TransactItem[];
  readonly writes: CompletionWrites;
}

/**
 * Maps a failed completion transaction to the error that explains it. Item 0 is the fenced
 * completion, then uniqueness claims, outbox events, and the handler's staged writes. A
 * failure of an item the handler queued is the handler's ({@link StagedWriteError}), not the
 * journal's: read from the cancellation reasons by index, or, for an error about the whole
 * request, from which tables it can concern (the journal's own table served this attempt's
 * reservation moments before).
 */
export function classifyCancellation(error: unknown, layout: CompletionLayout): Error {
  const { uniqueClaims, outbox } = layout.writes;
  const heldClaims = layout.writes.heldClaims ?? [];
  const heldOffset = 1 + uniqueClaims.length;
  const outboxOffset = heldOffset + heldClaims.length;
  const stagedOffset = outboxOffset + outbox.length;
  const describe = (i: number) =>
    i < heldOffset
      ? `uniqueness claim '${uniqueClaims[i - 1].name}'`
      : i < outboxOffset
        ? `held uniqueness claim '${heldClaims[i - heldOffset].name}'`
        : i < stagedOffset
          ? `outbox event #${i - outboxOffset}`
          : `staged write #${i - stagedOffset} (table ${tableOf(layout.items[i])})`;
  const reasons = cancellationReasonsOf(error);
  if (!reasons) return requestFailure(error, layout, stagedOffset) ?? toJournalError(error, 'complete');
  const failed = (i: number) => reasons[i]?.Code === 'ConditionalCheckFailed';
  if (failed(0)) {
    const item = itemOf(reasons[0]);
    return new LeaseLostError(item ? recordFromItem(item) : undefined);
  }
  // A claim held by another record (new), or a hold of ours that another attempt took over once our lease had ended.
  const claimIndex = [...uniqueClaims, ...heldClaims].findIndex((_, i) => failed(1 + i));
  if (claimIndex >= 0) {
    const claim = [...uniqueClaims, ...heldClaims][claimIndex];
    return new UniqueConflictError(claim.name, claim.value, itemOf(reasons[1 + claimIndex]));
  }
  const stagedIndex = reasons.findIndex((_, i) => i >= stagedOffset && failed(i));
  if (stagedIndex >= 0) return new WriteConflictError(stagedIndex - stagedOffset, { cause: error });
  const refused = reasons.findIndex(
    (reason, i) => i > 0 && reason?.Code !== undefined && !TRANSIENT_REASONS.has(reason.Code),
  );
  if (refused > 0) {
    const reason = reasons[refused];
    return new StagedWriteError(describe(refused), `${reason.Code}${reason.Message ? `: ${reason.Message}` : ''}`, {
      cause: error,
    });
  }
  return toJournalError(error, 'complete');
}

/**
 * A failure of the whole request that concerns the handler's writes: a validation error (the
 * journal's own items are well-formed by construction), or a missing table or a denied
 * permission when the handler wrote to tables other than the journal's.
 */
function requestFailure(error: unknown, layout: CompletionLayout, stagedOffset: number): StagedWriteError | undefined {
  const { name = 'Error', message = '' } = error as AwsError;
  const reason = `${name}: ${message}`;
  if (name === 'ValidationException') return new StagedWriteError('the queued writes', reason, { cause: error });
  if (name !== 'ResourceNotFoundException' && name !== 'AccessDeniedException') return undefined;
  const foreign = [...new Set(layout.items.slice(stagedOffset).map(tableOf))].filter(
    (table) => table !== layout.tableName,
  );
  // A denial names its resource: only a table the handler wrote to makes it the handler's.
  const named =
    name === 'AccessDeniedException' ? foreign.filter((table) => message.includes(`table/${table}`)) : foreign;
  if (named.length === 0) return undefined;
  const index = layout.items.findIndex((item, i) => i >= stagedOffset && tableOf(item) === named[0]);
  const item =
    named.length === 1
      ? `staged write #${index - stagedOffset} (table ${named[0]})`
      : `a staged write to one of the tables ${named.join(', ')}`;
  return new StagedWriteError(item, reason, { cause: error });
}
