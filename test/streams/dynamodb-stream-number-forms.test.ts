/**
 * Which form each DynamoDB number takes in a stream record's images: a number where a JavaScript
 * number is that value, a bigint or a NumberValue everywhere else, never a rounded number.
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { MemoryJournal } from '../../src/journal/index.js';
import { dynamodbStreamConsumer } from '../../src/streams/index.js';
import { dynamodbStreamEvent, lambdaContext } from '../../src/testing/index.js';

/** What the handler receives for one number attribute holding `text`. */
async function received(text: string): Promise<unknown> {
  let value: unknown;
  const consumer = dynamodbStreamConsumer(async (record) => void (value = record.newImage?.n), {
    journal: new MemoryJournal(),
    consumer: 'numbers',
  });
  const answer = await consumer(
    dynamodbStreamEvent([{ keys: { pk: { S: 'a' } }, newImage: { pk: { S: 'a' }, n: { N: text } } }]),
    lambdaContext(),
  );
  expect(answer).toEqual({ batchItemFailures: [] });
  return value;
}

describe('dynamodbStreamConsumer number forms', () => {
  it.each([
    ['0', 0],
    ['-17', -17],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
    ['-9007199254740991', Number.MIN_SAFE_INTEGER],
    ['19.99', 19.99],
    ['0.30000000000000004', 0.30000000000000004],
    ['1E+2', 100],
    ['1e-130', 1e-130],
  ])('%s is a number', async (text, number) => {
    expect(await received(text)).toBe(number);
  });

  it.each([
    ['9007199254740992', 9007199254740992n],
    ['-9007199254740993', -9007199254740993n],
    ['18446744073709551615', 18446744073709551615n],
    ['1E+30', 10n ** 30n],
  ])('%s is a bigint', async (text, integer) => {
    expect(await received(text)).toBe(integer);
  });

  it.each(['12345678901234567890.123', '0.12345678901234567890123', '123456789.123456789', '-1.00000000000000001'])(
    '%s is a NumberValue holding its digits',
    async (text) => {
      const value = await received(text);
      expect(value).toBeInstanceOf(NumberValue);
      expect(String(value)).toBe(text);
    },
  );
});
