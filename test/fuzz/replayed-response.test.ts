import fc from 'fast-check';
import { DynamoDBJournal, MemoryJournal } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { propertyParameters } from '../property/support/fast-check-parameters.js';
import { anyString } from './support/generators.js';
import { guardedCounter, isReplayOf, type PlannedResponse } from './support/http-harness.js';
import { type Journal } from '../../src/entries/journal.js';

/** Stored status codes (2xx–4xx but 408 and 429) with bodies of any UTF-16 text, past the compression threshold too, or bytes. */
const plannedResponse: fc.Arbitrary<PlannedResponse> = fc
  .record({
    statusCode: fc.integer({ min: 200, max: 499 }).filter((code) => code !== 408 && code !== 429),
    payload: fc.oneof(
      anyString(80).map((body) => ({ body })),
      fc
        .tuple(anyString(8), fc.integer({ min: 500, max: 1_500 }))
        .map(([unit, times]) => ({ body: unit.repeat(times) })),
      fc
        .uint8Array({ maxLength: 256 })
        .map((bytes) => ({ body: Buffer.from(bytes).toString('base64'), isBase64Encoded: true })),
    ),
  })
  .map(({ statusCode, payload }) => ({ statusCode, ...payload }));

async function replaysByteIdentically(journal: Journal, planned: PlannedResponse, key: string): Promise<void> {
  const { send, runs } = guardedCounter(journal, () => planned);
  const request = { method: 'POST', keyHeader: { name: 'Idempotency-Key', value: key }, body: '{"amount":1}' };

  const first = await send(request);
  const second = await send(request);

  expect(first).toMatchObject({ statusCode: planned.statusCode, body: planned.body });
  expect(isReplayOf(second, first)).toBe(true);
  expect(runs).toHaveLength(1);
}

describe('the replay of a generated response', () => {
  it('is byte-identical to the first answer on MemoryJournal', async () => {
    await fc.assert(
      fc.asyncProperty(plannedResponse, (planned) => replaysByteIdentically(new MemoryJournal(), planned, 'response')),
      propertyParameters(500),
    );
  });

  it('is byte-identical to the first answer on DynamoDBJournal (DynamoDB Local), compressed or not', async () => {
    const client = localClient();
    const journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(plannedResponse, (planned) => replaysByteIdentically(journal, planned, `response-${++run}`)),
      propertyParameters(40),
    );
  });
});
