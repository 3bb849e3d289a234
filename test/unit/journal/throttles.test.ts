import {
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { JournalThrottledError, JournalUnavailableError } from '../../../src/core/index.js';
import { throttleOf } from '../../../src/journal/throttling.js';
import { throttledAttemptsOf } from '../../../src/journal/throttled-retries.js';

const $metadata = { httpStatusCode: 400 };
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata,
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('which SDK errors are throttles', () => {
  it.each([
    ['ProvisionedThroughputExceededException', new ProvisionedThroughputExceededException({ message: 'x', $metadata })],
    ['ThrottlingException', new ThrottlingException({ message: 'x', $metadata })],
    ['RequestLimitExceeded', new RequestLimitExceeded({ message: 'x', $metadata })],
  ])('reads %s without ThrottlingReasons as a throttle named by the exception', (name, error) => {
    const throttled = throttleOf(error, 'reserve');

    expect(throttled).toBeInstanceOf(JournalThrottledError);
    expect(throttled).toBeInstanceOf(JournalUnavailableError);
    expect(throttled?.code).toBe('journal-throttled');
    expect(throttled?.reasons).toEqual([name]);
    expect(throttled?.cause).toBe(error);
  });

  it('keeps the reasons of ThrottlingReasons, once each, and never their resource ARNs', () => {
    const error = new ProvisionedThroughputExceededException({
      message: 'x',
      $metadata,
      ThrottlingReasons: [
        { reason: 'TableWriteKeyRangeThroughputExceeded', resource: 'arn:aws:dynamodb:eu-west-1:123456789012:table/j' },
        {
          reason: 'IndexWriteKeyRangeThroughputExceeded',
          resource: 'arn:aws:dynamodb:eu-west-1:123456789012:table/j/index/i',
        },
        { reason: 'TableWriteKeyRangeThroughputExceeded', resource: 'arn:aws:dynamodb:eu-west-1:123456789012:table/j' },
      ],
    });

    const throttled = throttleOf(error, 'complete');

    expect(throttled?.reasons).toEqual([
      'TableWriteKeyRangeThroughputExceeded',
      'IndexWriteKeyRangeThroughputExceeded',
    ]);
    expect(throttled?.message).not.toContain('arn:');
  });

  it('reads the lower-camel throttlingReasons of a ThrottlingException', () => {
    const error = new ThrottlingException({
      message: 'x',
      $metadata,
      throttlingReasons: [{ reason: 'TableReadMaxOnDemandThroughputExceeded' }],
    });

    expect(throttleOf(error, 'get')?.reasons).toEqual(['TableReadMaxOnDemandThroughputExceeded']);
  });

  it('reads a transaction cancelled for throttled items as a throttle with their codes', () => {
    expect(
      throttleOf(cancelled('None', 'ThrottlingError', 'ProvisionedThroughputExceeded'), 'complete')?.reasons,
    ).toEqual(['ThrottlingError', 'ProvisionedThroughputExceeded']);
  });

  it.each([
    ['an IAM refusal', Object.assign(new Error('denied'), { name: 'AccessDeniedException' })],
    ['a transaction cancelled by a conflict', cancelled('None', 'TransactionConflict')],
    ['a network error', Object.assign(new Error('socket hang up'), { name: 'TimeoutError' })],
    ['not an error', undefined],
  ])('does not read %s as a throttle', (_name, error) => {
    expect(throttleOf(error, 'reserve')).toBeUndefined();
  });
});

describe('how many SDK attempts a throttled journal call may make', () => {
  it.each(['reserve', 'takeOver', 'get', 'heartbeat', 'beginEffect', 'recordEvidence', 'holdUnique'] as const)(
    'gives %s one: the caller comes back instead',
    (operation) => expect(throttledAttemptsOf(operation)).toBe(1),
  );

  it.each(['complete', 'commitStaged', 'writeChunks', 'release', 'markUnknown', 'markAbandonedUnknown'] as const)(
    'gives %s two: it settles an outcome the handler produced',
    (operation) => expect(throttledAttemptsOf(operation)).toBe(2),
  );
});
