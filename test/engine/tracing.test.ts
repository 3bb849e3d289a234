import middy from '@middy/core';
import { DynamoDBJournal, httpIdempotency, makeIdempotent, type TracerLike } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';

/** Records what the guard asks of a Powertools Tracer (no X-Ray daemon runs here). */
function recordingTracer(): TracerLike & { annotations: [string, unknown][]; captured: unknown[] } {
  const annotations: [string, unknown][] = [];
  const captured: unknown[] = [];
  return {
    annotations,
    captured,
    putAnnotation: (key, value) => void annotations.push([key, value]),
    captureAWSv3Client: <T>(client: T) => {
      captured.push(client);
      return client;
    },
  };
}

describe('tracing with a tracer option', () => {
  const client = localClient();
  let tableName: string;

  beforeAll(async () => {
    tableName = await createJournalTable(client, 'traced');
  });

  it("captures the journal's SDK client once, however many guards share the journal", () => {
    const journal = new DynamoDBJournal({ tableName, client });
    const tracer = recordingTracer();
    httpIdempotency({ journal, tracer });
    makeIdempotent(async () => 1, { journal, tracer, operation: 'op', key: () => 'k' });

    expect(tracer.captured).toEqual([client]);
  });

  it('annotates each attempt with its status and attempt number, never with the key', async () => {
    const tracer = recordingTracer();
    const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
      httpIdempotency({ journal: new DynamoDBJournal({ tableName, client }), tracer }),
    );
    const key = `trace-${Math.random().toString(36).slice(2)}`;

    await handler(httpEvent({ key, body: { a: 1 } }) as never, lambdaContext());
    await handler(httpEvent({ key, body: { a: 1 } }) as never, lambdaContext());

    expect(tracer.annotations).toEqual([
      ['idempotency_status', 'new'],
      ['attempt', 1],
      ['idempotency_status', 'replay'],
    ]);
    expect(JSON.stringify(tracer.annotations)).not.toContain(key);
  });
});
