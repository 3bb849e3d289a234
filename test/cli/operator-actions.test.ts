import { randomBytes } from 'node:crypto';
import { Client } from '@smithy/core/client';
import { OPERATOR_ACTIONS } from '../../lib/journal-table.js';
import { runCli } from '../../src/cli/index.js';
import { DynamoDBJournal } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { requestPk } from '../../src/entries/journal.js';

/** `dynamodb:<Action>` of every DynamoDB command sent while `body` runs (document client commands too). */
async function actionsCalledBy(body: () => Promise<void>): Promise<Set<string>> {
  const called = new Set<string>();
  const original = Client.prototype.send as (...args: unknown[]) => unknown;
  const spy = jest.spyOn(Client.prototype, 'send').mockImplementation(function record(
    this: unknown,
    command: object,
    ...rest: unknown[]
  ) {
    called.add(`dynamodb:${command.constructor.name.replace(/Command$/, '')}`);
    return original.apply(this, [command, ...rest]);
  } as never);
  try {
    await body();
  } finally {
    spy.mockRestore();
  }
  return called;
}

async function cli(...args: string[]): Promise<number> {
  return runCli(args, { out: () => undefined, err: () => undefined });
}

describe('OPERATOR_ACTIONS, the operator CLI grant', () => {
  it('covers every call of inspect, stuck and both resolutions, large responses included', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const journal = new DynamoDBJournal({ tableName, client, clock: () => Date.now() - 120_000 });
    const stalled = async (key: string) => {
      const pk = requestPk('acme', 'POST /payments', key);
      const reservation = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 600 });
      if (!reservation.reserved) throw new Error('expected a reservation');
      return pk;
    };
    const [released, completed] = [await stalled('released'), await stalled('completed')];
    // Incompressible and past one item's size: resolving writes chunk items, inspecting reads them back.
    const large = JSON.stringify({ statusCode: 200, body: randomBytes(450_000).toString('base64') });
    const target = ['--table', tableName, '--endpoint', process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT!];

    const called = await actionsCalledBy(async () => {
      expect(await cli(...target, 'stuck')).toBe(0);
      expect(await cli(...target, 'resolve', released, '--released')).toBe(0);
      expect(await cli(...target, 'resolve', completed, '--completed', large)).toBe(0);
      expect(await cli(...target, 'inspect', completed)).toBe(0);
    });

    expect(called).toEqual(
      new Set([
        'dynamodb:DescribeTable',
        'dynamodb:Scan',
        'dynamodb:GetItem',
        'dynamodb:DeleteItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:BatchGetItem',
      ]),
    );
    expect([...called].filter((action) => !OPERATOR_ACTIONS.includes(action))).toEqual([]);
  });
});
