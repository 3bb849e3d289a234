import { ReplicatedWriteConflictException } from '@aws-sdk/client-dynamodb';
import { idempotencyOf, makeIdempotent, UniqueConflictError, type MetricsSink } from '../../src/index.js';
import { mrscRegions, type Region } from './support/mrsc-profile.js';
import { journalSweeper } from '../../src/entries/multi-region.js';
import { journalOperationOf, RecordPrefix } from '../../src/entries/journal.js';

/**
 * A refund holds `refund:<paymentId>` (`holdUnique`) before it moves money. On a multi-Region
 * journal the completion is one single-item write and the claim's own writes are others, with no
 * transaction between them: cross-Region conflicts (or the Lambda ending) may cut off the write
 * after the completion. Then the record expires, the sweeper deletes it, and other requests come
 * for the same payment. A claim whose holder completed must stay refused to all of them; nothing
 * between the two writes may decide otherwise. Against the real DynamoDB Local, with the MRSC
 * profile injecting the conflicts.
 */
const START = Date.UTC(2026, 11, 1);
const TTL_SECONDS = 60;
const quiet = { info: () => undefined, error: () => undefined } as never;
const noMetrics = {
  singleMetric: () => ({ addDimension: () => undefined, addMetric: () => undefined }),
} as unknown as MetricsSink;

interface RefundInput {
  readonly key: string;
  readonly paymentId: string;
}

async function payments() {
  const clock = { now: START };
  const { tableName, regions } = await mrscRegions(['us-east-1', 'us-west-2'], () => clock.now);
  const rail: string[] = [];
  /** A refund guarded in `region`: holds the claim, (optionally) begins its effect, refunds. */
  const refund = (region: Region, options: { beginEffect: boolean } = { beginEffect: true }) =>
    makeIdempotent(
      async (input: RefundInput, context) => {
        const scope = idempotencyOf(context);
        await scope.holdUnique('refund', input.paymentId);
        if (options.beginEffect) await scope.beginEffect('refund');
        rail.push(input.paymentId);
        return { refunded: input.paymentId };
      },
      {
        journal: region.journal,
        operation: 'refund',
        key: (input) => input.key,
        clock: () => clock.now,
        ttlSeconds: TTL_SECONDS,
        logger: quiet,
        metrics: noMetrics,
      },
    );
  const sweep = () =>
    journalSweeper({
      tableName,
      client: regions[1]!.client,
      clock: () => clock.now,
      metrics: noMetrics,
    })();
  return { clock, east: regions[0]!, west: regions[1]!, rail, refund, sweep };
}

describe('a held claim on a multi-Region journal, when the write after the completion is cut off', () => {
  it.each([
    ['after beginEffect()', true],
    ['completed without beginEffect()', false],
  ])('stays refused to another key once the record expired and was swept (%s)', async (_name, beginEffect) => {
    const { clock, east, west, rail, refund, sweep } = await payments();
    // Whatever the first caller was answered (the next test checks that), its refund was made.
    await claimWritesCutOffAfterTheCompletion(east, () =>
      refund(east, { beginEffect })({ key: 'refund-1', paymentId: 'pay_1' }).catch(() => undefined),
    );
    clock.now += (TTL_SECONDS + 60) * 1000;
    const swept = await sweep();

    const second = await refund(west)({ key: 'refund-2', paymentId: 'pay_1' }).catch((error: unknown) => error);

    expect(swept.deleted).toBeGreaterThanOrEqual(1);
    expect(second).toBeInstanceOf(UniqueConflictError);
    expect(rail).toEqual(['pay_1']);
  });

  it('stays refused to the same key reused after its outcome expired: a new operation', async () => {
    const { clock, east, rail, refund, sweep } = await payments();
    await claimWritesCutOffAfterTheCompletion(east, () =>
      refund(east)({ key: 'refund-1', paymentId: 'pay_1' }).catch(() => undefined),
    );
    clock.now += (TTL_SECONDS + 60) * 1000;
    await sweep();

    const again = await refund(east)({ key: 'refund-1', paymentId: 'pay_1' }).catch((error: unknown) => error);

    expect(again).toBeInstanceOf(UniqueConflictError);
    expect(rail).toEqual(['pay_1']);
  });

  it('answers the completed outcome: the cut-off write is not the completion', async () => {
    const { east, rail, refund } = await payments();

    const answered = await claimWritesCutOffAfterTheCompletion(east, () =>
      refund(east)({ key: 'refund-1', paymentId: 'pay_1' }),
    );
    const replay = await refund(east)({ key: 'refund-1', paymentId: 'pay_1' });

    expect(answered).toEqual({ refunded: 'pay_1' });
    expect(replay).toEqual({ refunded: 'pay_1' });
    expect(rail).toEqual(['pay_1']);
  });
});

/**
 * Runs `call` with every write to a uniqueness claim sent through `region` refused by
 * cross-Region conflicts (outlasting the journal's bound) once the record's completion landed:
 * another Region keeps writing the claim item just then.
 */
async function claimWritesCutOffAfterTheCompletion<T>(region: Region, call: () => Promise<T>): Promise<T> {
  let calling = true;
  let completed = false;
  region.client.middlewareStack.add(
    (next) => async (args) => {
      const key = (args.input as { Key?: { pk?: { S?: string } } }).Key?.pk?.S ?? '';
      if (calling && completed && key.startsWith(RecordPrefix.unique)) {
        throw new ReplicatedWriteConflictException({
          message: 'One or more items in this request are being modified by a request in another Region',
          $metadata: { httpStatusCode: 400 },
        });
      }
      const out = await next(args);
      completed ||= journalOperationOf(args) === 'complete' && key.startsWith(RecordPrefix.request);
      return out;
    },
    { step: 'initialize', name: 'claimWritesCutOff' },
  );
  try {
    return await call();
  } finally {
    calling = false;
  }
}
