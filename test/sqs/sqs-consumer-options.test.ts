import { InvalidOptionsError, KeyMissingError, RequestInvalidError } from '../../src/core/index.js';
import { MemoryJournal } from '../../src/journal/index.js';
import { fromBodyField, fromMessageAttribute, sqsConsumer } from '../../src/sqs/index.js';
import { sqsRecord } from '../../scripts/local/sqs-records.js';

const journal = new MemoryJournal();
const noop = async () => undefined;

describe('sqsConsumer options', () => {
  it.each([
    [{ journal, consumer: 'c', messageID: () => 'x' }, "unknown option 'messageID'"],
    [{ journal }, "option 'consumer' is required"],
    [{ journal, consumer: '' }, "option 'consumer' must be a non-empty string"],
    [{ journal, consumer: 'c', messageId: 'eventId' }, "option 'messageId' must be a function"],
    [{ journal, consumer: 'c', fingerprint: {} }, "option 'fingerprint' must be a function"],
    [{ journal, consumer: 'c', concurrency: 0 }, "option 'concurrency' must be at least 1"],
    [{ journal, consumer: 'c', concurrency: 1.5 }, "option 'concurrency' must be a whole number"],
    [{ journal: {}, consumer: 'c' }, "'journal' must be"],
    [{ journal, consumer: 'c', ttlSeconds: 0 }, "option 'ttlSeconds' must be at least 1"],
  ])('rejects %j', (options, message) => {
    expect(() => sqsConsumer(noop, options as never)).toThrow(InvalidOptionsError);
    expect(() => sqsConsumer(noop, options as never)).toThrow(message);
  });

  it('rejects a record handler that is not a function', () => {
    expect(() => sqsConsumer('handler' as never, { journal, consumer: 'c' })).toThrow(InvalidOptionsError);
  });

  it('refuses an event that is not an SQS event', async () => {
    await expect(sqsConsumer(noop, { journal, consumer: 'c' })({} as never)).rejects.toThrow(RequestInvalidError);
  });
});

describe('message id readers', () => {
  it('reads a String message attribute', () => {
    expect(fromMessageAttribute('eventId')(sqsRecord('{}', { attributes: { eventId: 'e-1' } }))).toBe('e-1');
  });

  it('throws KeyMissingError for an absent attribute', () => {
    expect(() => fromMessageAttribute('eventId')(sqsRecord('{}'))).toThrow(KeyMissingError);
  });

  it('reads a nested body field, numbers as strings', () => {
    expect(fromBodyField('detail.orderId')(sqsRecord('{"detail":{"orderId":"o-1"}}'))).toBe('o-1');
    expect(fromBodyField('seq')(sqsRecord('{"seq":42}'))).toBe('42');
  });

  it('throws RequestInvalidError for a body that is not JSON', () => {
    expect(() => fromBodyField('id')(sqsRecord('not json'))).toThrow(RequestInvalidError);
  });

  it('throws KeyMissingError for an absent or non-string field', () => {
    expect(() => fromBodyField('id')(sqsRecord('{"other":1}'))).toThrow(KeyMissingError);
    expect(() => fromBodyField('id')(sqsRecord('{"id":{"a":1}}'))).toThrow(KeyMissingError);
    expect(() => fromBodyField('a.b')(sqsRecord('null'))).toThrow(KeyMissingError);
  });

  it('reports an id that is not a valid key', async () => {
    const record = sqsRecord('{"id":"has space"}');
    const response = await sqsConsumer(noop, { journal, consumer: 'c', messageId: fromBodyField('id') })({
      Records: [record],
    });
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
  });
});
