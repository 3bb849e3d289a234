import middy from '@middy/core';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { httpIdempotency, idempotencyOf } from '../../../src/index.js';
import { json, jsonBody } from '../../../src/handlers/http-responses.js';
import { ExampleTableKey } from '../../../src/handlers/service-config.js';
import { localLambdaContext } from '../../local/lambda-context.js';
import type { DemoContext } from '../demo-context.js';
import { newIdempotencyKey } from '../../../src/client/index.js';

const OPERATION = 'POST /transfers';

/**
 * `POST /transfers`, a handler whose only effect is a DynamoDB item: it records an incoming
 * bank transfer in the payments table. Guarded with `effects: 'staged-only'`, it runs first and
 * its write commits with the idempotency record in one transaction.
 */
function transfersContainer(ctx: DemoContext, runs: { count: number }) {
  const handler = middy(
    async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> => {
      runs.count++;
      const body = jsonBody(event) as { amount: number; currency: string; reference: string };
      const scope = idempotencyOf(context);
      const transfer = {
        [ExampleTableKey.payments]: `tr_${scope.deriveKey('transfer')}`,
        kind: 'transfer',
        idempotencyKey: scope.key,
        amount: body.amount,
        currency: body.currency,
        reference: body.reference,
        status: 'RECORDED',
      };
      scope.stage({
        Put: {
          TableName: ctx.stack.tables.payments,
          Item: transfer,
          ConditionExpression: `attribute_not_exists(${ExampleTableKey.payments})`,
        },
      });
      return json(201, {
        transferId: transfer[ExampleTableKey.payments],
        amount: body.amount,
        currency: body.currency,
        status: transfer.status,
      });
    },
  ).use(
    httpIdempotency({
      journal: ctx.journal,
      operation: OPERATION,
      effects: 'staged-only',
      logger: ctx.capture.logger,
      metrics: ctx.capture.metrics,
    }),
  );
  return (event: APIGatewayProxyEventV2) =>
    handler(
      event,
      localLambdaContext({ functionName: 'record-transfer' }),
    ) as Promise<APIGatewayProxyStructuredResultV2>;
}

async function transfersStored(ctx: DemoContext, key: string): Promise<number> {
  const out = await ctx.stack.doc.send(
    new ScanCommand({
      TableName: ctx.stack.tables.payments,
      ConsistentRead: true,
      FilterExpression: 'idempotencyKey = :key',
      ExpressionAttributeValues: { ':key': key },
    }),
  );
  return out.Count ?? 0;
}

/** A double tap on a handler whose effects are all staged: both requests run, one commits, both get the same 201. */
export async function stagedOnlyDoubleTap(ctx: DemoContext): Promise<void> {
  const { narrator, capture } = ctx;
  narrator.scenario(
    7,
    'A double tap on a staged-only handler',
    "POST /transfers only writes DynamoDB items, so it is guarded with effects: 'staged-only': no reservation, one transaction.",
  );
  const key = newIdempotencyKey();
  const request = () =>
    ({
      ...ctx.paymentRequest(key, { amount: 25000, currency: 'EUR', reference: 'INV-2026-0042' }),
      routeKey: OPERATION,
      rawPath: '/transfers',
    }) as APIGatewayProxyEventV2;
  const runs = { count: 0 };
  narrator.event('client', `POST /transfers ×2 at once  Idempotency-Key: ${key.slice(0, 8)}…`);
  const answers = await Promise.all([
    transfersContainer(ctx, runs)(request()),
    transfersContainer(ctx, runs)(request()),
  ]);
  const lines = capture.drain();
  for (const answer of answers) {
    const replayed = answer.headers?.['Idempotent-Replayed'] === 'true';
    ctx.answer(
      'api',
      answer,
      lines.find((l) => (l.status === 'replay') === replayed),
    );
  }
  const stored = await transfersStored(ctx, key);
  narrator.event(
    'journal',
    `${lines.map((l) => `${l.status}: ${l.journalCalls} DynamoDB call`).join('; ')}; the handler ran ${runs.count}×, ${stored} transfer item committed`,
  );
  const sameBody = answers[0].body === answers[1].body;
  const ok = answers.every((a) => a.statusCode === 201) && sameBody && stored === 1;
  narrator.verdict(
    'staged-only double tap',
    ok,
    `two identical 201 answers (${sameBody ? 'same body' : 'bodies differ'}), no 409, ${stored} committed write`,
  );
}
