import { InvalidOptionsError, RequestInvalidError } from '../../src/core/index.js';
import { MemoryJournal } from '../../src/journal/index.js';
import { dynamodbStreamConsumer, kinesisConsumer } from '../../src/streams/index.js';
import { kinesisRecord } from '../support/kinesis.js';

const journal = new MemoryJournal();
const noop = async () => undefined;

describe.each([
  ['kinesisConsumer', kinesisConsumer],
  ['dynamodbStreamConsumer', dynamodbStreamConsumer],
] as const)('%s options', (name, factory) => {
  it.each([
    [{ journal, consumer: 'c', messageID: () => 'x' }, "unknown option 'messageID'"],
    [{ journal, consumer: 'c', concurrency: 2 }, "unknown option 'concurrency'"],
    [{ journal }, "option 'consumer' is required"],
    [{ journal, consumer: '' }, "option 'consumer' must be a non-empty string"],
    [{ journal, consumer: 'c', messageId: 'eventID' }, "option 'messageId' must be a function"],
    [{ journal, consumer: 'c', fingerprint: {} }, "option 'fingerprint' must be a function"],
    [{ journal: {}, consumer: 'c' }, "'journal' must be"],
  ])('rejects %j', (options, message) => {
    expect(() => factory(noop, options as never)).toThrow(InvalidOptionsError);
    expect(() => factory(noop, options as never)).toThrow(`${name}: `);
    expect(() => factory(noop, options as never)).toThrow(message);
  });

  it('rejects a record handler that is not a function', () => {
    expect(() => factory('handler' as never, { journal, consumer: 'c' })).toThrow(InvalidOptionsError);
  });

  it('refuses an event that has no Records array', async () => {
    await expect(factory(noop, { journal, consumer: 'c' })({} as never)).rejects.toThrow(RequestInvalidError);
  });

  it('reads the consumer name from IDEMKIT_CONSUMER when the option is absent', () => {
    process.env.IDEMKIT_CONSUMER = 'from-env';
    try {
      expect(() => factory(noop, { journal })).not.toThrow();
    } finally {
      delete process.env.IDEMKIT_CONSUMER;
    }
  });
});

describe('kinesisConsumer dataFormat', () => {
  it('rejects a format it does not know', () => {
    expect(() => kinesisConsumer(noop, { journal, consumer: 'c', dataFormat: 'xml' as never })).toThrow(
      "kinesisConsumer: option 'dataFormat' must be 'json' or 'text' or 'bytes', got xml",
    );
  });

  it('refuses a record without a sequence number, naming its position', async () => {
    const record = kinesisRecord({ id: 1 });
    const unnumbered = { ...record, kinesis: { ...record.kinesis, sequenceNumber: '' } };
    await expect(kinesisConsumer(noop, { journal, consumer: 'c' })({ Records: [record, unnumbered] })).rejects.toThrow(
      'kinesisConsumer: record 1 of the batch has no sequence number',
    );
  });
});
