import fastify from 'fastify';
import { idempotency as expressIdempotency } from '../../../src/entries/express.js';
import { idempotency as fastifyIdempotency } from '../../../src/entries/fastify.js';
import { idempotency as honoIdempotency } from '../../../src/entries/hono.js';
import { dynamodbStreamConsumer, kinesisConsumer } from '../../../src/entries/streams.js';
import {
  httpIdempotency,
  makeIdempotent,
  MemoryJournal,
  MemoryOutcomeCache,
  sqsConsumer,
  type CachedOutcome,
  type OutcomeCache,
} from '../../../src/index.js';
import { lambdaContext } from '../../support/lambda.js';

/** A cache that records what it was asked and given. */
function recordingCache(): OutcomeCache & { gets: string[]; sets: CachedOutcome[] } {
  const inner: OutcomeCache = new MemoryOutcomeCache({ maxItems: 10 });
  const gets: string[] = [];
  const sets: CachedOutcome[] = [];
  return {
    gets,
    sets,
    get: (pk) => {
      gets.push(pk);
      return inner.get(pk);
    },
    set: (pk, entry, ttlMs) => {
      sets.push(entry);
      return inner.set(pk, entry, ttlMs);
    },
  };
}

describe('the outcomeCache option', () => {
  it.each([
    [
      'httpIdempotency',
      (outcomeCache: OutcomeCache) => httpIdempotency({ journal: new MemoryJournal(), outcomeCache }),
    ],
    [
      'the Express door',
      (outcomeCache: OutcomeCache) => expressIdempotency({ journal: new MemoryJournal(), outcomeCache }),
    ],
    ['the Hono door', (outcomeCache: OutcomeCache) => honoIdempotency({ journal: new MemoryJournal(), outcomeCache })],
    [
      'the Fastify door',
      async (outcomeCache: OutcomeCache) => {
        const app = fastify();
        await app.register(fastifyIdempotency, { journal: new MemoryJournal(), outcomeCache });
        await app.close();
      },
    ],
    [
      'makeIdempotent',
      (outcomeCache: OutcomeCache) =>
        makeIdempotent(async () => 1, { journal: new MemoryJournal(), operation: 'op', key: () => 'k', outcomeCache }),
    ],
    [
      'sqsConsumer',
      (outcomeCache: OutcomeCache) =>
        sqsConsumer(async () => undefined, { journal: new MemoryJournal(), consumer: 'c', outcomeCache }),
    ],
    [
      'kinesisConsumer',
      (outcomeCache: OutcomeCache) =>
        kinesisConsumer(async () => undefined, { journal: new MemoryJournal(), consumer: 'c', outcomeCache }),
    ],
    [
      'dynamodbStreamConsumer',
      (outcomeCache: OutcomeCache) =>
        dynamodbStreamConsumer(async () => undefined, { journal: new MemoryJournal(), consumer: 'c', outcomeCache }),
    ],
  ])('is accepted by %s', async (_name, build) => {
    // Options are checked when the factory is called (or the plugin registered): a refused one throws here.
    await build(new MemoryOutcomeCache({ maxItems: 10 }));
  });

  it('keeps the completed outcome as the documented JSON entry, and replays it without asking the journal', async () => {
    const journal = new MemoryJournal();
    const cache = recordingCache();
    let runs = 0;
    const charge = makeIdempotent(async (input: { id: string }) => ({ charged: input.id, run: ++runs }), {
      journal,
      operation: 'charge',
      key: (input) => input.id,
      outcomeCache: cache,
    });
    const reserve = jest.spyOn(journal, 'reserve');

    const first = await charge({ id: 'c-1' }, lambdaContext());
    const replay = await charge({ id: 'c-1' }, lambdaContext());

    expect(replay).toEqual(first);
    expect(runs).toBe(1);
    expect(reserve).toHaveBeenCalledTimes(1);
    expect(cache.sets).toHaveLength(1);
    const [entry] = cache.sets;
    expect(JSON.parse(JSON.stringify(entry))).toEqual({
      pk: cache.gets[0],
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAtEpochSeconds: expect.any(Number),
      responseJson: JSON.stringify({ value: first }),
    });
  });
});
