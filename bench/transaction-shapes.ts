import { TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startDynamoDBLocal } from '../src/testing/index.js';
import { benchClient, createTable } from './harness/dynamodb.js';
import { median } from './harness/stats.js';

/**
 * What the shape of the staged-only transaction costs on the server: the `TransactWriteItems`
 * idemkit sends for a new key (captured by bench/staged-breakdown.ts) against the floor's, and
 * the floor with each of idemkit's additions alone (its full claim condition, `ALL_OLD` on
 * failure, the client request token, idemkit's record attributes), on one DynamoDB Local,
 * alternating shape by shape, each with fresh keys. Writes bench/transaction-shapes.json.
 *
 * @example npx tsx bench/transaction-shapes.ts
 */
const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 15;
const PER_ROUND = 40;

const captured = JSON.parse(readFileSync(join(here, 'staged-breakdown.json'), 'utf8')) as {
  idemkitInput: TransactWriteItemsCommandInput;
  floorInput: TransactWriteItemsCommandInput;
};

type Shape = (journal: string, payments: string) => TransactWriteItemsCommandInput;

/** Fresh keys and the tables of this run in a captured input. */
function retarget(input: TransactWriteItemsCommandInput, journal: string, payments: string, token: boolean) {
  const copy = structuredClone(input);
  const suffix = randomUUID();
  for (const [i, entry] of (copy.TransactItems ?? []).entries()) {
    const put = entry.Put!;
    put.TableName = i === 0 ? journal : payments;
    put.Item!.pk = { S: `${put.Item!.pk.S}#${suffix}` };
  }
  if (token) copy.ClientRequestToken = randomUUID();
  else delete copy.ClientRequestToken;
  return copy;
}

const idemkitRecordPut = captured.idemkitInput.TransactItems![0].Put!;

/** The floor's transaction with one or both of idemkit's additions to its record `Put`. */
function floorWith(journal: string, payments: string, add: { claimCondition?: boolean; allOld?: boolean }) {
  const input = retarget(captured.floorInput, journal, payments, false);
  const put = input.TransactItems![0].Put!;
  if (add.claimCondition) {
    put.ConditionExpression = idemkitRecordPut.ConditionExpression;
    put.ExpressionAttributeNames = idemkitRecordPut.ExpressionAttributeNames;
    put.ExpressionAttributeValues = idemkitRecordPut.ExpressionAttributeValues;
  }
  if (add.allOld) put.ReturnValuesOnConditionCheckFailure = 'ALL_OLD';
  return input;
}
const SHAPES: Record<string, Shape> = {
  'floor (attribute_not_exists, no token)': (j, p) => retarget(captured.floorInput, j, p, false),
  'floor + client request token': (j, p) => retarget(captured.floorInput, j, p, true),
  'floor + ALL_OLD on failure': (j, p) => floorWith(j, p, { allOld: true }),
  "floor + idemkit's claim condition": (j, p) => floorWith(j, p, { claimCondition: true }),
  "floor + idemkit's claim condition and ALL_OLD": (j, p) => floorWith(j, p, { claimCondition: true, allOld: true }),
  "idemkit's transaction without its token": (j, p) => retarget(captured.idemkitInput, j, p, false),
  "idemkit's transaction (as sent)": (j, p) => retarget(captured.idemkitInput, j, p, true),
};

const server = await startDynamoDBLocal();
try {
  const client = benchClient(server.endpoint);
  const journal = await createTable(client, 'shapes-journal', 'pk');
  const payments = await createTable(client, 'shapes-payments', 'pk');
  const names = Object.keys(SHAPES);
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]]));
  for (let round = -2; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + Math.max(round, 0)) % names.length]);
    for (const name of order) {
      for (let i = 0; i < PER_ROUND; i++) {
        const input = SHAPES[name](journal, payments);
        const started = performance.now();
        await client.send(new TransactWriteItemsCommand(input));
        if (round >= 0) samples[name].push(performance.now() - started);
      }
    }
  }
  const floorMedian = median(samples[names[0]]);
  const results = Object.fromEntries(
    names.map((n) => [
      n,
      {
        medianMs: Number(median(samples[n]).toFixed(3)),
        ofFloor: Number((median(samples[n]) / floorMedian).toFixed(3)),
      },
    ]),
  );
  for (const [n, r] of Object.entries(results))
    process.stderr.write(`${r.medianMs.toFixed(2)} ms  ${r.ofFloor.toFixed(2)}×  ${n}\n`);
  writeFileSync(
    join(here, 'transaction-shapes.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), rounds: ROUNDS, perRound: PER_ROUND, results }, null, 2)}\n`,
  );
  client.destroy();
} finally {
  await server.stop();
}
process.exit(0);
