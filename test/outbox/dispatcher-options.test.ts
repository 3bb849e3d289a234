import { InvalidOptionsError } from '../../src/core/index.js';
import { outboxDispatcher } from '../../src/outbox/index.js';

const queueUrl = 'http://127.0.0.1:9/000000000000/events';

const invalid: Array<[Record<string, unknown>, string]> = [
  [{ queueUrl, queueURL: queueUrl }, "unknown option 'queueURL'"],
  [{ queueUrl, source: 'x' }, "unknown option 'source'"],
  [{ eventBusName: 'bus', messageGroupId: () => 'g' }, "unknown option 'messageGroupId'"],
  [{}, "exactly one of 'queueUrl' and 'eventBusName'"],
  [{ queueUrl, eventBusName: 'bus' }, "exactly one of 'queueUrl' and 'eventBusName'"],
  [{ queueUrl: '' }, "'queueUrl' must be a non-empty string"],
  [{ eventBusName: 'bus', source: '' }, "'source' must be a non-empty string"],
  [{ queueUrl, messageGroupId: () => 'g' }, "'messageGroupId' applies only to a FIFO queue"],
  [{ queueUrl: `${queueUrl}.fifo`, messageGroupId: 'g' }, "'messageGroupId' must be a function"],
  [{ queueUrl, client: {} }, "'client' must be an AWS SDK v3 client"],
];

describe('outboxDispatcher options', () => {
  it.each(invalid)('rejects %j', (options, message) => {
    expect(() => outboxDispatcher(options as never)).toThrow(InvalidOptionsError);
    expect(() => outboxDispatcher(options as never)).toThrow(message);
  });

  it('accepts a queue or a bus', () => {
    expect(outboxDispatcher({ queueUrl })).toEqual(expect.any(Function));
    expect(outboxDispatcher({ eventBusName: 'bus' })).toEqual(expect.any(Function));
  });

  it('refuses an event that is not a stream batch', async () => {
    await expect(outboxDispatcher({ queueUrl })({} as never)).rejects.toThrow('not a DynamoDB Streams event');
  });
});
