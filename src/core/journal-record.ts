/**
 * The journal record as every layer sees it (decoded; times carry their unit). It lives in
 * the leaf so that errors can carry the record they conflict with without importing the
 * journal.
 */

/** Lifecycle states of an idempotency record. */
export const RecordStatus = {
  inProgress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  unknown: 'UNKNOWN',
} as const;
export type RecordStatus = (typeof RecordStatus)[keyof typeof RecordStatus];

/** Downstream references recorded by an attempt (charge ids, ticket numbers...). */
export type Evidence = Record<string, string | number>;

/** A journal record as the engine sees it (decoded; times carry their unit). */
export interface JournalRecord {
  readonly pk: string;
  readonly status: RecordStatus;
  readonly fingerprint: string;
  readonly leaseToken: string;
  readonly leaseUntilEpochMs: number;
  readonly attempt: number;
  readonly createdAtEpochMs: number;
  readonly updatedAtEpochMs: number;
  /** Absent while an effect may have happened without a recorded outcome. */
  readonly expiresAtEpochSeconds?: number;
  /** Present once completed; `{ value: undefined }` is a valid, empty outcome. */
  readonly response?: { readonly value: unknown };
  readonly evidence: Evidence;
  readonly effectStarted: boolean;
  readonly effectName?: string;
  /** The Lambda durable execution that holds the record: its replays continue under the record's lease. */
  readonly durableExecutionArn?: string;
}
