import { TransactionCanceledException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** What a test can observe about injected cancellations. */
export interface CancellationHandle {
  /** Transactions cancelled by the injection. */
  readonly fired: () => number;
}

/**
 * Cancels the client's `TransactWriteItems` requests with a cancellation reason DynamoDB Local
 * never gives: `TransactionConflict` (another transaction holds one of the items; DynamoDB Local
 * runs transactions one at a time) or `ThrottlingError`. Before each cancellation `meanwhile`
 * runs (say, the concurrent transaction that won, sent to the real server); the cancelled
 * request itself is never sent. `times` limits how many requests are cancelled (default: all);
 * `on` picks the items carrying `code` (default: item 0, the record), the others carry `None`.
 */
export function injectCancellation(
  client: DynamoDBClient,
  options: {
    code?: 'TransactionConflict' | 'ThrottlingError';
    times?: number;
    meanwhile?: () => Promise<unknown>;
    on?: (index: number) => boolean;
  } = {},
): CancellationHandle {
  let fired = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand' || fired >= (options.times ?? Infinity))
        return next(args);
      fired++;
      await options.meanwhile?.();
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems ?? [];
      const on = options.on ?? ((index: number) => index === 0);
      const code = options.code ?? 'TransactionConflict';
      throw new TransactionCanceledException({
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: items.map((_, index) =>
          on(index) ? { Code: code, Message: `${code} on the item` } : { Code: 'None' },
        ),
      });
    },
    { step: 'finalizeRequest', name: `transaction-cancellation-${Math.random().toString(36).slice(2)}` },
  );
  return { fired: () => fired };
}
