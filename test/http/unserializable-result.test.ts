import { RecordStatus } from '../../src/index.js';
import { httpEvent } from '../support/lambda.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { guard } from './guarded-handler.js';

describe('httpIdempotency with a handler result JSON cannot carry', () => {
  it('answers 500 response-not-serializable to the first request and its retry, running the handler once', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const guarded = guard(async () => {
      runs++;
      return { amount: 10n } as never;
    }, journal);

    const first = await guarded(httpEvent({ key: 'bigint-1', body: { amount: 10 } }));
    const retry = await guarded(httpEvent({ key: 'bigint-1', body: { amount: 10 } }));

    for (const answer of [first, retry]) {
      expect(answer.statusCode).toBe(500);
      expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:response-not-serializable');
    }
    expect(runs).toBe(1);
    expect((await journal.get('req#-#POST /payments#bigint-1'))?.status).toBe(RecordStatus.completed);
  });
});
