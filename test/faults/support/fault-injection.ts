import {
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
  type DynamoDBClient,
  type ThrottlingReason,
} from '@aws-sdk/client-dynamodb';
import { journalOperationOf, type JournalOperation } from '../../../src/journal/index.js';

/** The journal call a DynamoDB request belongs to: the operation the journal tags it with. */
export type JournalCall = JournalOperation;

/**
 * What goes wrong with a matching request:
 * - `lost-response`: the server applies the request, the client never sees the answer (a network error);
 * - `throttle`: refused before it is sent, as DynamoDB does when a partition is over its throughput, with the
 *   `ThrottlingReasons` DynamoDB sends since 2025 when `reasons` is given;
 * - `throttled-transaction`: a `TransactWriteItems` cancelled because its first item was throttled
 *   (cancellation code `ThrottlingError`, the others `None`), as DynamoDB answers a throttled transaction;
 * - `late-write`: the client times out after `timeoutMs`; the request is still delivered after
 *   `deliverAfterMs`, so its write lands when the caller has already given up;
 * - `access-denied`: refused as IAM refuses a role without the permission; DynamoDB's message names the role,
 *   the table and the account (DynamoDB Local checks no permissions, so it cannot answer this itself).
 */
export type Fault =
  | { kind: 'lost-response' }
  | { kind: 'throttle'; error?: ThrottleName; reasons?: ThrottlingReason[] }
  | { kind: 'throttled-transaction' }
  | { kind: 'late-write'; timeoutMs: number; deliverAfterMs: number }
  | { kind: 'access-denied' };

/** DynamoDB's throttling exceptions. */
export type ThrottleName = 'ProvisionedThroughputExceededException' | 'ThrottlingException' | 'RequestLimitExceeded';

/** What a test can observe about an injected fault. */
export interface FaultHandle {
  /** Requests of the targeted call that met the fault. */
  readonly fired: () => number;
  /** Requests of the targeted call the server received (including the ones whose answer was lost). */
  readonly delivered: () => number;
  /** Resolves once every late write started by the fault has reached the server. */
  readonly settled: () => Promise<void>;
}

/** The network-level error the SDK raises when a socket times out or hangs up. */
function networkTimeout(): Error {
  return Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET', $metadata: {} });
}

/** The account, role and table an IAM refusal names: none of it may reach a caller. */
export const DENIED_ACCOUNT_ID = '123456789012';

function accessDenied(): Error {
  return Object.assign(
    new Error(
      `User: arn:aws:sts::${DENIED_ACCOUNT_ID}:assumed-role/payments-fn-role/payments-fn is not authorized to perform: ` +
        `dynamodb:PutItem on resource: arn:aws:dynamodb:eu-west-1:${DENIED_ACCOUNT_ID}:table/prod-idempotency-journal ` +
        'because no identity-based policy allows the dynamodb:PutItem action',
    ),
    { name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } },
  );
}

function throttled(error: ThrottleName, reasons?: ThrottlingReason[]): Error {
  const $metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };
  switch (error) {
    case 'ThrottlingException':
      // The SDK spells this exception's list in lower camel case.
      return new ThrottlingException({
        message: 'Throughput exceeds the current capacity for one or more global secondary indexes.',
        $metadata,
        throttlingReasons: reasons,
      });
    case 'RequestLimitExceeded':
      return new RequestLimitExceeded({
        message: 'Throughput exceeds the current throughput limit for your account.',
        $metadata,
        ThrottlingReasons: reasons,
      });
    case 'ProvisionedThroughputExceededException':
      return new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded.',
        $metadata,
        ThrottlingReasons: reasons,
      });
  }
}

function throttledTransaction(input: unknown): Error {
  const items = (input as { TransactItems?: unknown[] }).TransactItems ?? [];
  return new TransactionCanceledException({
    message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError]',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: items.map((_, index) =>
      index === 0 ? { Code: 'ThrottlingError', Message: 'Throughput exceeds the current capacity' } : { Code: 'None' },
    ),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Adds a fault to the client's middleware stack, inside the SDK's retry loop (step
 * `finalizeRequest`), so every SDK attempt of the targeted journal call meets it. Calls are told
 * apart by the operation the journal tags each request with, never by their expressions. `times`
 * limits how many requests meet it (default: all of them). Requests go to the real server.
 */
export function injectFault(
  client: DynamoDBClient,
  call: JournalCall,
  fault: Fault,
  options: { times?: number } = {},
): FaultHandle {
  let fired = 0;
  let delivered = 0;
  const late: Promise<unknown>[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const matches = journalOperationOf(args) === call;
      if (!matches || fired >= (options.times ?? Infinity)) {
        try {
          return await next(args);
        } finally {
          if (matches) delivered++;
        }
      }
      fired++;
      switch (fault.kind) {
        case 'lost-response':
          await next(args).finally(() => delivered++);
          throw networkTimeout();
        case 'access-denied':
          throw accessDenied();
        case 'throttle':
          throw throttled(fault.error ?? 'ProvisionedThroughputExceededException', fault.reasons);
        case 'throttled-transaction':
          throw throttledTransaction(args.input);
        case 'late-write':
          late.push(
            sleep(fault.deliverAfterMs)
              .then(() => next(args))
              .then(
                () => delivered++,
                () => delivered++,
              ),
          );
          await sleep(fault.timeoutMs);
          throw networkTimeout();
      }
    },
    { step: 'finalizeRequest', name: `fault-${call}-${fault.kind}-${Math.random().toString(36).slice(2)}` },
  );
  return { fired: () => fired, delivered: () => delivered, settled: async () => void (await Promise.all(late)) };
}
