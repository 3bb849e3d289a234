import { unmarshall } from '@aws-sdk/util-dynamodb';
import { JournalUnavailableError, LeaseLostError, UniqueConflictError, WriteConflictError } from '../core/index.js';
import type { UniqueClaim } from './journal.js';
import { fromAttributeMap, type AttributeMap } from './attribute-values.js';
import { recordFromItem, type JournalItem } from './record-item.js';

type AwsError = { name?: string; Item?: Record<string, unknown>; CancellationReasons?: Array<{ Code?: string; Item?: Record<string, unknown> }> };

/** True for a failed `ConditionExpression` on a single-item write. */
export function isConditionFailure(error: unknown): boolean {
  return (error as AwsError)?.name === 'ConditionalCheckFailedException';
}

/** The item returned with `ReturnValuesOnConditionCheckFailure: ALL_OLD` (the SDK leaves it marshalled). */
export function oldItemOf(error: unknown): JournalItem | undefined {
  const item = (error as AwsError).Item;
  return item ? fromAttributeMap(item as AttributeMap) : undefined;
}

/** Wraps an unexpected SDK failure: the journal could not answer. */
export function toJournalError(error: unknown, operation: string): JournalUnavailableError {
  const name = (error as AwsError)?.name ?? 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return new JournalUnavailableError(`Journal ${operation} failed: ${name}: ${message}`, { cause: error });
}

/**
 * Maps a cancelled completion transaction to the error that explains it. Item 0 is the
 * fenced completion, then uniqueness claims, outbox events, and the handler's staged writes.
 */
export function classifyCancellation(error: unknown, layout: { uniqueClaims: readonly UniqueClaim[]; stagedOffset: number }): Error {
  const reasons = (error as AwsError)?.name === 'TransactionCanceledException' ? (error as AwsError).CancellationReasons : undefined;
  if (!reasons) return toJournalError(error, 'complete');
  const failed = (i: number) => reasons[i]?.Code === 'ConditionalCheckFailed';
  if (failed(0)) {
    const item = reasons[0].Item;
    return new LeaseLostError(item ? recordFromItem(unmarshall(item as never)) : undefined);
  }
  const claimIndex = layout.uniqueClaims.findIndex((_, i) => failed(1 + i));
  if (claimIndex >= 0) {
    const claim = layout.uniqueClaims[claimIndex];
    const held = reasons[1 + claimIndex]?.Item;
    return new UniqueConflictError(claim.name, claim.value, held ? unmarshall(held as never) : undefined);
  }
  const stagedIndex = reasons.findIndex((_, i) => i >= layout.stagedOffset && failed(i));
  if (stagedIndex >= 0) return new WriteConflictError(stagedIndex - layout.stagedOffset, { cause: error });
  return toJournalError(error, 'complete');
}
